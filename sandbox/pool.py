"""Host side of the boundary: starts the warm zygote, queues jobs, collects validated results.

One ``Pool`` per judge process. ``submit`` never blocks: it hands a job to the zygote and
returns a future, or raises ``PoolSaturated`` at once when the bounded queue is full. A reader
thread resolves futures as results arrive; if the zygote dies, every pending job fails with
``SandboxUnavailable`` and the next submission starts a fresh zygote.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sandbox import protocol
from sandbox.limits import Limits
from sandbox.protocol import RunResult

PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
# BLAS and OpenMP threads would fight the per-child limits (and seccomp refuses clone anyway).
THREAD_ENV = {
    name: "1"
    for name in (
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS",
    )
}
# Variables some machines need for numpy's BLAS to pick a working kernel; passed through as is.
PASSED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PATH", "LANG", "LC_ALL")
START_TIMEOUT = 30.0


class PoolSaturated(RuntimeError):
    """Every worker is busy and the queue is full: try again shortly."""


class SandboxUnavailable(RuntimeError):
    """The zygote is gone or misbehaved; the submission could not be run."""


def zygote_command(workers: int) -> list[str]:
    # -I: isolated mode, no user site, no PYTHON* variables, no current directory on sys.path.
    bootstrap = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "sys.argv = sys.argv[1:]; from sandbox.zygote import main; main()"
    )
    return [sys.executable, "-I", "-c", bootstrap, PROJECT_ROOT, str(workers)]


def zygote_environment() -> dict[str, str]:
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.update(THREAD_ENV)
    return env


class Pool:
    """A warm zygote and its queue; thread-safe; ``close()`` leaves no process behind."""

    def __init__(self, workers: int | None = None, queue_size: int = 64) -> None:
        if queue_size < 0:
            raise ValueError("queue_size must be >= 0")
        self.workers = workers or os.cpu_count() or 1
        self.capacity = self.workers + queue_size
        self._lock = threading.Lock()
        self._pending: dict[int, Future[RunResult]] = {}
        self._ids = itertools.count(1)
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._layers: dict[str, bool] = {}
        self._reasons: dict[str, str] = {}
        self._landlock_abi = 0
        self._closed = False
        self._completed = 0
        self._restarts = 0
        self._start()

    # -- lifecycle --------------------------------------------------------------------

    def _start(self) -> None:
        process = subprocess.Popen(
            zygote_command(self.workers),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=zygote_environment(),
            cwd="/",
            close_fds=True,
            start_new_session=True,
        )
        assert process.stdout is not None
        reader = protocol.FrameReader()
        started = time.monotonic()
        ready: dict[str, Any] | None = None
        fd = process.stdout.fileno()
        while ready is None:
            if time.monotonic() - started > START_TIMEOUT:
                process.kill()
                process.wait()
                raise SandboxUnavailable("the sandbox zygote did not start in time")
            data = os.read(fd, 65536)
            if not data:
                process.wait()
                raise SandboxUnavailable(
                    f"the sandbox zygote exited during start-up (code {process.returncode})"
                )
            for message in reader.feed(data):
                if message.get("event") == "ready":
                    ready = message
        self._layers = protocol.parse_layers(ready.get("layers"))
        reasons = ready.get("reasons")
        self._reasons = {
            str(k): str(v) for k, v in (reasons.items() if isinstance(reasons, dict) else [])
        }
        abi = ready.get("landlock_abi")
        self._landlock_abi = abi if type(abi) is int else 0
        self._process = process
        self._reader = threading.Thread(
            target=self._read_results, args=(process, reader), name="sandbox-reader", daemon=True
        )
        self._reader.start()

    def close(self) -> None:
        """Stop the zygote and all its children; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            process = self._process
        if process is not None:
            self._stop_process(process)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        self._fail_pending(SandboxUnavailable("the sandbox pool was closed"))

    @staticmethod
    def _stop_process(process: subprocess.Popen[bytes]) -> None:
        try:
            assert process.stdin is not None
            process.stdin.write(protocol.encode({"op": "stop"}))
            process.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass
        try:
            process.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        # The zygote's children are in their own sessions; the zygote kills them when it stops,
        # and each child also has a parent-death signal. Kill the zygote's group to be certain.
        try:
            os.killpg(process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- jobs -------------------------------------------------------------------------

    def submit(
        self,
        *,
        code: str,
        entry_point: str,
        cases: list[dict[str, Any]],
        parameters: dict[str, str],
        limits: Limits,
        random_mode: str = "none",
        rng_argument: str | None = None,
        helpers: str = "",
    ) -> Future[RunResult]:
        """Queue one submission; returns at once. Raises PoolSaturated when full."""
        future: Future[RunResult] = Future()
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the sandbox pool is closed")
            if len(self._pending) >= self.capacity:
                raise PoolSaturated(f"all {self.workers} workers busy and the queue is full")
            if self._process is None or self._process.poll() is not None:
                self._restarts += 1
                self._start()
            job_id = next(self._ids)
            self._pending[job_id] = future
            message = {
                "op": "run",
                "job": job_id,
                "code": code,
                "entry_point": entry_point,
                "cases": cases,
                "parameters": parameters,
                "random_mode": random_mode,
                "rng_argument": rng_argument,
                "helpers": helpers,
                "limits": asdict(limits),
            }
            try:
                assert self._process is not None and self._process.stdin is not None
                self._process.stdin.write(protocol.encode(message))
                self._process.stdin.flush()
            except (BrokenPipeError, OSError, ValueError) as exc:
                del self._pending[job_id]
                raise SandboxUnavailable(f"the sandbox is not reachable: {exc}") from None
        return future

    def run(self, timeout: float | None = None, **job: Any) -> RunResult:
        """Blocking convenience around submit()."""
        return self.submit(**job).result(timeout)

    def _read_results(self, process: subprocess.Popen[bytes], reader: protocol.FrameReader) -> None:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        try:
            while True:
                data = os.read(fd, 1 << 20)
                if not data:
                    break
                for message in reader.feed(data):
                    self._deliver(message)
        except (OSError, protocol.ProtocolError):
            pass
        with self._lock:
            if self._process is process:
                self._process = None
        self._stop_process(process)  # also reaps a dead one and closes its pipes
        self._fail_pending(SandboxUnavailable("the sandbox stopped while grading"))

    def _deliver(self, message: dict[str, Any]) -> None:
        job_id = message.get("job")
        with self._lock:
            future = self._pending.pop(job_id, None) if isinstance(job_id, int) else None
            if future is not None:
                self._completed += 1
        if future is None:
            return
        if "error" in message:
            future.set_exception(SandboxUnavailable(str(message["error"])))
            return
        try:
            future.set_result(parse_result(message.get("result")))
        except protocol.ProtocolError as exc:
            future.set_exception(SandboxUnavailable(f"invalid sandbox result: {exc}"))

    def _fail_pending(self, error: Exception) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(error)

    # -- status -----------------------------------------------------------------------

    @property
    def layers(self) -> dict[str, bool]:
        return dict(self._layers)

    @property
    def reasons(self) -> dict[str, str]:
        """Why each inactive layer is off, as the zygote found at start-up."""
        return dict(self._reasons)

    @property
    def landlock_abi(self) -> int:
        return self._landlock_abi

    def status(self) -> dict[str, Any]:
        with self._lock:
            alive = self._process is not None and self._process.poll() is None
            return {
                "alive": alive and not self._closed,
                "workers": self.workers,
                "capacity": self.capacity,
                "in_flight": len(self._pending),
                "completed": self._completed,
                "restarts": self._restarts,
                "zygote_pid": self._process.pid if alive and self._process else None,
            }


def parse_result(raw: Any) -> RunResult:
    """Validate the zygote's summary of one job (it relays child messages it already checked)."""
    if not isinstance(raw, dict):
        raise protocol.ProtocolError("result must be an object")
    cases_raw = raw.get("cases")
    if not isinstance(cases_raw, list):
        raise protocol.ProtocolError("cases must be a list")
    wall = raw.get("wall_ms", 0.0)
    return RunResult(
        layers=protocol.parse_layers(raw.get("layers", {})),
        setup=protocol.parse_setup(raw.get("setup")),
        cases=[protocol.parse_case(case, 1 << 20) for case in cases_raw if isinstance(case, dict)],
        wall_ms=float(wall) if isinstance(wall, (int, float)) else 0.0,
    )
