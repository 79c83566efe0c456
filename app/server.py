"""Runs the app under uvicorn: one process, one warm pool, stopped cleanly on SIGINT/SIGTERM."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import uvicorn

from app.config import ConfigError, Settings
from app.main import create_app
from app.startup import StartupError, prepare

log = logging.getLogger("judge")

# `judge serve`'s options, by the setting each overrides: a refused value is named as given.
SERVE_FLAGS = {"host": "--host", "port": "--port", "exercises_dir": "--exercises"}


def server_config(app: Any, host: str, port: int) -> uvicorn.Config:
    """The one uvicorn configuration: the judge's, and the benchmarks' baseline server's."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        lifespan="on",  # a failed start-up (unsafe sandbox, bad catalog) must stop the server
        timeout_graceful_shutdown=10,
        log_level="info",
        server_header=False,
        # X-Forwarded-For is believed only from JUDGE_TRUSTED_PROXIES, by app.learners itself:
        # uvicorn's own rewrite of the client address (it trusts 127.0.0.1) would let any local
        # process pick the address a grade is counted under.
        proxy_headers=False,
    )


def run(settings: Settings) -> None:
    """Serve until interrupted; one line on stderr and exit status 3 if it cannot start."""
    try:
        judge = prepare(settings)
    except StartupError as exc:
        _refuse(str(exc), 3)
    app = create_app(settings, judge)
    server = uvicorn.Server(server_config(app, settings.host, settings.port))
    # uvicorn shuts down gracefully on SIGINT/SIGTERM, then re-raises the signal against the
    # handler it found: make that a clean exit (status 0) instead of a traceback or a signal death.
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_cleanly) if in_main else None
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        judge.close()  # idempotent; the app was handed it, so its lifespan leaves it to us
    if not server.started:
        sys.exit(3)


def _refuse(reason: str, status: int) -> NoReturn:
    print(f"judge: cannot start: {reason}", file=sys.stderr, flush=True)
    sys.exit(status)


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def serve(
    host: str | None,
    port: int | None,
    *,
    allow_unconfined: bool = False,
    exercises: Path | None = None,
    reload_exercises: bool = False,
) -> None:
    """`judge serve`: environment settings, overridden by the command line (a flag not given
    leaves JUDGE_HOST, JUDGE_PORT or the default in force)."""
    overrides: dict[str, object] = {}
    if host is not None:
        overrides["host"] = host
    if port is not None:
        overrides["port"] = port
    if allow_unconfined:
        overrides["allow_unconfined"] = True
    if exercises is not None:
        overrides["exercises_dir"] = exercises
    if reload_exercises:
        overrides["reload_exercises"] = True
    try:
        settings = Settings.from_env(given_as=SERVE_FLAGS, **overrides)
    except ConfigError as exc:
        _refuse(str(exc), 2)
    run(settings)


if __name__ == "__main__":
    try:
        from_env = Settings.from_env()
    except ConfigError as exc:
        _refuse(str(exc), 2)
    run(from_env)
