"""An exercise's trusted code run at load (its case generator, its law), within a time limit.

That code runs in the judge's own process, not the sandbox: an author's loop that never ends
would hang `judge serve`, `grade` and `exercises check` with no word. At load, on the main
thread (where the catalog is read at start), a timer stops it with one line naming the file.
Elsewhere (a reload on its own thread) signals cannot reach it, and it runs unlimited.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

LOAD_LIMIT_S = 10.0


class _Expired(BaseException):
    """Raised into the trusted code by the timer: a BaseException, so that no ``except
    Exception`` in it (or around it) takes it for one of its own errors."""


@contextmanager
def time_limited(
    path: Path, what: str, error: type[Exception] = ValueError, seconds: float | None = None
) -> Iterator[None]:
    """Run the block, or raise ``error`` naming ``path`` once it has run ``seconds`` (default
    LOAD_LIMIT_S)."""
    seconds = LOAD_LIMIT_S if seconds is None else seconds
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise _Expired

    started = time.monotonic()
    previous = signal.signal(signal.SIGALRM, expire)
    # Someone else's timer (pytest-timeout's) is put back, less the time spent here.
    outer, _ = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Expired:
        raise error(f"{path}: {what} did not finish within {seconds:g} s (a loop?)") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 1e-3))
