"""The baseline server: the judge's app with a FreshJudge, which starts a brand-new
interpreter per grade (the design the warm zygote replaces), run by ``--serve-fresh PORT``."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, cast

from app.catalog import Exercise
from app.errors import InvalidRequest
from app.schemas import Report
from bench.sandbox_step import fresh_grade

if TYPE_CHECKING:
    from app.grading.judge import Judge


class FreshJudge:
    """Same interface as app.grading.judge.Judge, but every grade starts a brand-new interpreter.

    The child gets the same confinement, harness and checks as the warm pool (it runs
    ``bench.sandbox_step.fresh_grade``); only where the process comes from differs. At most one
    interpreter per core runs at a time, like the pool's one child per core.
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._slots = threading.BoundedSemaphore(self.workers)
        self._lock = threading.Lock()
        self._in_flight = 0
        self._completed = 0
        self._layers = _fresh_layers()

    def grade(self, exercise: Exercise, code: str) -> Report:
        with self._slots:
            with self._lock:
                self._in_flight += 1
            try:
                return fresh_grade(exercise, code)
            finally:
                with self._lock:
                    self._in_flight -= 1
                    self._completed += 1

    async def grade_async(
        self, exercise: Exercise, code: str, mode: str = "run", seed: int | None = None
    ) -> Report:
        """Run only: the comparison is of six-case grades (Submit's extra cases are not here)."""
        if mode != "run":
            raise InvalidRequest("The fresh-interpreter judge grades Run only.")
        return await asyncio.to_thread(self.grade, exercise, code)

    def health(self) -> dict[str, object]:
        with self._lock:
            running = min(self._in_flight, self.workers)
            # The warm pool's shape (schemas.PoolHealth): no zygote, no slow lane, and every
            # grade past the workers waits on the semaphore, unbounded.
            pool = {
                "alive": True,
                "workers": self.workers,
                "capacity": self.workers,
                "lanes": {
                    "fast": {"in_use": running, "capacity": self.workers},
                    "slow": {"in_use": 0, "capacity": 0, "memory_mb_bound": 0},
                    "queue": {"in_use": self._in_flight - running, "capacity": 0},
                },
                "in_flight": self._in_flight,
                "completed": self._completed,
                "restarts": 0,
                "zygote_pid": None,  # a fresh interpreter per submission: no zygote
            }
        return {"layers": dict(self._layers), "pool": pool}

    def close(self) -> None:
        """Nothing runs between grades: nothing to stop."""


def _fresh_layers() -> dict[str, bool]:
    """The layers a fresh child gets here: the same Confinement, built and thrown away."""
    from sandbox.confine import Confinement, default_read_paths

    confinement = Confinement(default_read_paths())
    try:
        return {**confinement.available(), "policy": True}
    finally:
        confinement.close()


def serve_fresh(host: str, port: int) -> None:
    """``--serve-fresh PORT``: the judge's app, its grading done by FreshJudge."""
    import uvicorn

    from app.config import Settings
    from app.main import create_app
    from app.server import server_config

    settings = Settings.from_env(host=host, port=port)
    judge = FreshJudge(settings.workers)
    # FreshJudge has the methods the app calls on a Judge (grade_async, health, close).
    app = create_app(settings, judge=cast("Judge", judge))
    # The same server settings as app.server.run, so the comparison is about the judge.
    server = uvicorn.Server(server_config(app, host, port))
    signal.signal(signal.SIGTERM, lambda *_: setattr(server, "should_exit", True))
    server.run()
    if not server.started:
        sys.exit(3)
