"""How the zygote forks a child: glibc's fork, without the interpreter's after-fork work.

``os.fork()`` runs CPython's after-fork work in the child before the child's first line: locks
re-created for threads the fork did not copy, and the Python callbacks modules registered with
``os.register_at_fork``. In the zygote those are two: ``threading``'s bookkeeping of the
threads that did not survive (the zygote runs none) and ``random``'s reseed. That Python code
wrote ~190 pages the child shared with the zygote, each one a copy, before the child did
anything of its own; some of them the child writes later anyway, and in all a child copies
~60 pages fewer without it (docs/performance.md, ninth session).

With one thread, none of it is needed: no other thread can hold a lock the fork copied, and
the forking thread goes on as the child's only thread, with the same identity (the same
``pthread_self``, so the interpreter's and ``threading``'s idea of the main thread stay true).
glibc's own fork handlers still run (its allocator's locks, the cached process and thread ids).
The one callback a learner can tell apart is ``random``'s, and it is done here, in the parent,
just before each fork: the child starts with a state of its own drawn from ``os.urandom``, so
each child draws other numbers from an unseeded ``random``, as before. Reseeding in the child
(``random.seed()``, as the callback does) wrote ~45 pages there, the Python wrapper's and the
generator's; in the zygote the same state is written into pages it writes anyway.

The zygote checks once, before the first fork, that it runs a single thread (``lean_fork``);
if it does not, every fork is ``os.fork()``. Nor does the lean fork clear the interpreter's
pending signals, as ``os.fork()`` does: the zygote installs no Python signal handler, so there
is nothing a child could run on the zygote's behalf.
"""

from __future__ import annotations

import ctypes
import os
import random

__all__ = ["fork", "lean_fork", "single_threaded"]

# PyDLL: the call keeps the GIL, so the child starts holding it, as the forking thread did.
_LIBC = ctypes.PyDLL(None, use_errno=True)
_lean = False
# The C method under random.seed(): seed(None) reads a new state from os.urandom.
_reseed = super(random.Random, random._inst).seed


def single_threaded() -> bool:
    """Whether this process runs exactly one thread, C threads included (Linux's view)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False  # no /proc: no way to know, so the interpreter's fork


def lean_fork() -> bool:
    """Fork with glibc's fork from now on if this process is single-threaded; returns whether
    it is. Called once, when the zygote is warm (it starts no thread after that)."""
    global _lean
    _lean = single_threaded()
    return _lean


def fork() -> int:
    """Like ``os.fork()``: 0 in the child, the child's pid in the parent; OSError on failure."""
    if not _lean:
        return os.fork()
    _reseed(None)  # the state this child starts from, which no other child had
    pid = int(_LIBC.fork())
    if pid < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"fork: {os.strerror(code)}")
    return pid
