"""The zygote as a process, seen from the host: how it is started, written to and stopped.

The zygote is a clean interpreter of its own (``sandbox.zygote``), started with the flags and
the environment below: one BLAS thread, glibc's memory tunables, Python's allocator off. The
host writes orders to its stdin through a ``Writer`` that never blocks a caller, and reads its
events from its stdout (``sandbox.pool``'s reader thread).
"""

from __future__ import annotations

import fcntl
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sandbox import framing, protocol

PROJECT_ROOT = str(Path(__file__).resolve().parent.parent)
# BLAS and OpenMP threads would fight the per-child limits (and seccomp refuses clone anyway).
THREAD_ENV = {
    name: "1"
    for name in (
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "BLIS_NUM_THREADS",
    )
}
# Variables some machines need for numpy's BLAS to pick a working kernel; passed through as is.
PASSED_ENV = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "PATH", "LANG", "LC_ALL")
# glibc fills every chunk it frees (and every one it hands out) with a pattern, and the per-thread
# cache that would skip that is off. The zygote's freed heap holds earlier jobs' bytes, other
# learners' code among them, and each child inherits it: an uninitialised read in a child (a
# numpy path ``sandbox.policy.memory`` does not know of) then finds the pattern, not their code.
MEMORY_TUNABLES = "glibc.malloc.perturb=165:glibc.malloc.tcache_count=0"
# Python's own small-object allocator keeps freed blocks as they were (the tokenizer's copies of
# a cached source's string literals, found by red-teaming): every object goes to glibc instead.
MEMORY_ALLOCATOR = {"PYTHONMALLOC": "malloc"}
START_TIMEOUT = 30.0


class SandboxUnavailable(RuntimeError):
    """The zygote is gone or misbehaved; the submission could not be run."""


# What -I (isolated mode) gives, minus ignoring the environment, which is ours anyway
# (environment()): -s no user site, -P no current directory on sys.path. The environment
# must reach the interpreter for PYTHONMALLOC (MEMORY_ALLOCATOR).
INTERPRETER_FLAGS = ("-s", "-P")


def command(workers: int, slow_lane: int) -> list[str]:
    """The zygote's command line: this interpreter, the project on its path, its lanes."""
    bootstrap = (
        "import sys; sys.path.insert(0, sys.argv[1]); "
        "sys.argv = sys.argv[1:]; from sandbox.zygote import main; main()"
    )
    return [
        sys.executable,
        *INTERPRETER_FLAGS,
        "-c",
        bootstrap,
        PROJECT_ROOT,
        str(workers),
        str(slow_lane),
    ]


def environment() -> dict[str, str]:
    """The zygote's whole environment: nothing of the web process's beyond ``PASSED_ENV``."""
    env = {name: os.environ[name] for name in PASSED_ENV if name in os.environ}
    env.update(THREAD_ENV)
    env.update(MEMORY_ALLOCATOR)
    operator_tunables = os.environ.get("GLIBC_TUNABLES")
    env["GLIBC_TUNABLES"] = ":".join(filter(None, [operator_tunables, MEMORY_TUNABLES]))
    return env


def spawn(
    workers: int, slow_lane: int
) -> tuple[subprocess.Popen[bytes], framing.FrameReader, protocol.ZygoteReady]:
    """A new zygote, warmed up and ready; raises SandboxUnavailable if it does not start."""
    process = subprocess.Popen(
        command(workers, slow_lane),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=environment(),
        cwd="/",
        close_fds=True,
        start_new_session=True,
    )
    assert process.stdout is not None and process.stdin is not None
    # Room for whole jobs in both pipes: submit() runs on the web server's event loop, and a
    # write must not wait for a zygote busy forking (nor the zygote for a slow reader).
    for pipe in (process.stdin, process.stdout):
        enlarge_pipe(pipe.fileno())
    reader = framing.FrameReader()
    started = time.monotonic()
    ready: protocol.ZygoteReady | None = None
    fd = process.stdout.fileno()
    while ready is None:
        left = START_TIMEOUT - (time.monotonic() - started)
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            stop(process)
            raise SandboxUnavailable("the sandbox zygote did not start in time")
        data = os.read(fd, 65536)
        if not data:
            stop(process)
            raise SandboxUnavailable(
                f"the sandbox zygote exited during start-up (code {process.returncode})"
            )
        for payload in reader.feed_raw(data):
            event = protocol.parse_event(framing.split_body(payload)[0])
            if isinstance(event, protocol.ZygoteReady):
                ready = event
    return process, reader, ready


def stop(process: subprocess.Popen[bytes], writer: Writer | None = None) -> None:
    """Tell a zygote to stop, then make sure it and its process group are gone and reaped."""
    order = protocol.encode_order(protocol.STOP)
    try:
        assert process.stdin is not None
        if writer is not None:  # after what it has queued, from its own thread
            writer.put(order)
            writer.finish(timeout=1.0)
        else:
            process.stdin.write(order)
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


PIPE_BYTES = 1 << 20
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)


def enlarge_pipe(fd: int) -> None:
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:  # above /proc/sys/fs/pipe-max-size for an unprivileged user: keep the default
        pass


class Writer:
    """Writes to a zygote's stdin, never blocking a caller on that pipe.

    The host's reader thread must always be free to drain the zygote's replies. A zygote busy
    writing a reply reads no jobs, and a caller blocked writing a job while it held the pool's
    lock stopped the reader too: a deadlock for good (large job bodies and
    large replies together). So the pipe does not block: a frame is written at once by the
    caller when nothing is waiting before it and the pipe has room (the usual case: it holds
    whole jobs), and what does not fit goes to the writer thread, which waits for room. Waking
    that thread for every frame cost the web process more CPU than anything else it did per
    grade. Frames keep their order; what is queued is bounded by the pool's capacity (at most
    one frame per job in flight, and its helpers).
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._fd: int = stream.fileno()
        os.set_blocking(self._fd, False)
        self._lock = threading.Lock()
        self._behind = 0  # frames handed to the thread and not yet written whole
        self._frames: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="sandbox-writer", daemon=True)
        self._thread.start()

    def put(self, frame: bytes) -> None:
        with self._lock:
            if not self._behind:
                try:
                    written = os.write(self._fd, frame)
                except BlockingIOError:
                    written = 0
                except OSError:
                    return  # the zygote is gone: the reader sees it and fails the pending work
                if written == len(frame):
                    return
                frame = frame[written:]
            self._behind += 1
        self._frames.put(frame)

    def _run(self) -> None:
        room = select.poll()  # not select(): the web server's descriptors may pass 1024
        room.register(self._fd, select.POLLOUT)
        while (frame := self._frames.get()) is not None:
            view = memoryview(frame)
            try:
                while view:
                    try:
                        view = view[os.write(self._fd, view) :]
                    except BlockingIOError:
                        room.poll()
            except (OSError, ValueError):
                return  # the zygote is gone: the reader sees it and fails the pending work
            with self._lock:
                self._behind -= 1

    def finish(self, timeout: float) -> None:
        """Write what is queued (at most ``timeout`` seconds), then stop."""
        self._frames.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout)
