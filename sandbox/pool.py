"""Host side of the boundary: starts the warm zygote, queues jobs, collects validated results.

One ``Pool`` per judge process. ``submit`` never blocks: it hands a job to the zygote and
returns a future, or raises ``PoolSaturated`` at once when the bounded queue is full. A reader
thread resolves futures as results arrive; if the zygote dies, every pending job fails with
``SandboxUnavailable`` and a fresh zygote starts on a thread of its own (meanwhile ``submit``
raises ``SandboxUnavailable`` at once).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from sandbox import framing, protocol, zygote_process
from sandbox.assembly import JobRecord, KilledFromOutside
from sandbox.job import DRIVER_FILENAME, TRACE_FILENAME, Job, RandomMode
from sandbox.limits import Limits
from sandbox.results import RunResult
from sandbox.zygote_process import SandboxUnavailable, Writer


@dataclass
class _Pending:
    """A job in flight, as the host keeps it: the body is resent for the cases after a kill."""

    future: Future[RunResult]
    record: JobRecord
    body: bytes
    helpers_key: str | None = None
    # The job's trusted driver and trace, by key: the zygote compiles each once (plain Python).
    trusted_keys: dict[str, str] = field(default_factory=dict)
    demoted: bool = False  # the zygote parked it in the slow lane: no fast slot held
    generator: bool = False  # its draws come from a generator argument (RandomMode.generator)


ENCODED_CASES = 1024  # case inputs the pool keeps encoded (the oldest go first)


class PoolSaturated(RuntimeError):
    """Every worker is busy and the queue is full: try again shortly."""


def trusted_sources(job: Job) -> dict[str, str]:
    """The job's trusted sources the zygote may compile ahead, by the file name they run as."""
    sources = {DRIVER_FILENAME: job.driver, TRACE_FILENAME: job.trace}
    return {filename: source for filename, source in sources.items() if source}


def trusted_key(filename: str, source: str) -> str:
    """The key a trusted source's compiled code is known by (its file name and its text)."""
    text = f"{filename}\0{source}".encode("utf-8", "surrogatepass")
    return "trusted:" + hashlib.sha256(text).hexdigest()


class Pool:
    """A warm zygote, its lanes and its queue; thread-safe; ``close()`` leaves no process behind.

    Lanes: ``workers`` fast slots (children at normal priority); a job that runs long is
    demoted by the zygote into the slow lane (``slow_lane`` parked children at the lowest CPU
    priority), freeing its fast slot; ``queue_size`` jobs may wait for a fast slot. Past that,
    ``submit`` raises PoolSaturated. Every bound is finite: at most ``capacity`` jobs in flight
    (or one group of ``submit_all`` more than the fast slots and queue hold, taken when idle).
    """

    def __init__(
        self, workers: int | None = None, queue_size: int = 64, slow_lane: int | None = None
    ) -> None:
        if queue_size < 0:
            raise ValueError("queue_size must be >= 0")
        if slow_lane is not None and slow_lane < 0:
            raise ValueError("slow_lane must be >= 0")
        self.workers = workers or os.cpu_count() or 1
        self.queue_size = queue_size
        self.slow_lane = 4 * self.workers if slow_lane is None else slow_lane
        self.capacity = self.workers + queue_size + self.slow_lane
        self._memory_mb = Limits().memory_mb  # the largest a child was given (for status)
        self._lock = threading.Lock()
        self._pending: dict[int, _Pending] = {}
        self._helpers_sent: set[str] = set()  # by the running zygote; a new one starts empty
        # Case inputs as JSON, by the case object (held, so its id stays its own): the stored
        # cases of every Run and Submit, and a Submit's random cases, which the reference's job
        # started ahead encoded already. A case is never changed once handed over (Job).
        self._encoded: dict[int, tuple[Any, str]] = {}
        self._encoding = threading.Lock()
        self._ids = itertools.count(1)
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._writer: Writer | None = None
        self._layers: dict[str, bool] = {}
        self._reasons: dict[str, str] = {}
        self._landlock_abi = 0
        self._closed = False
        self._completed = 0
        self._restarts = 0
        self._restarter: threading.Thread | None = None  # a new zygote starting, if any
        self._start()

    # -- lifecycle --------------------------------------------------------------------

    def _start(self) -> None:
        """Start a zygote and wait until it is ready (blocking: at construction only)."""
        self._install(*zygote_process.spawn(self.workers, self.slow_lane))

    def _install(
        self,
        process: subprocess.Popen[bytes],
        reader: framing.FrameReader,
        ready: protocol.ZygoteReady,
    ) -> None:
        """Make a ready zygote the pool's (the caller holds the lock, or is the constructor)."""
        assert process.stdin is not None
        self._helpers_sent = set()
        self._layers = dict(ready.layers)
        self._reasons = dict(ready.reasons)
        self._landlock_abi = ready.landlock_abi
        self._process = process
        writer = self._writer = Writer(process.stdin)
        self._reader = threading.Thread(
            target=self._read_results,
            args=(process, reader, writer),
            name="sandbox-reader",
            daemon=True,
        )
        self._reader.start()

    def _restart_soon(self) -> None:
        """Start a new zygote on a thread of its own, one at a time (the caller holds the lock).

        Its start-up is a fresh interpreter's imports and warm-up: started by a request (on the
        web server's event loop), every request waited for it meanwhile. Until it is ready,
        ``submit`` refuses at once (SandboxUnavailable: the API's 503 with Retry-After)."""
        if self._closed or self._restarter is not None:
            return
        if self._process is not None and self._process.poll() is None:
            return  # a successor is already serving
        self._restarter = threading.Thread(
            target=self._restart, name="sandbox-restart", daemon=True
        )
        self._restarter.start()

    def _restart(self) -> None:
        try:
            spawned = zygote_process.spawn(self.workers, self.slow_lane)
        except SandboxUnavailable:
            spawned = None  # the next submission tries again
        with self._lock:
            self._restarter = None
            if spawned is not None and not self._closed:
                self._restarts += 1
                self._install(*spawned)
                return
        if spawned is not None:  # closed meanwhile
            zygote_process.stop(spawned[0])

    def close(self) -> None:
        """Stop the zygote and all its children; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            process, writer = self._process, self._writer
            restarter = self._restarter
        if restarter is not None and restarter is not threading.current_thread():
            restarter.join(timeout=zygote_process.START_TIMEOUT + 5)  # it stops what it started
        if process is not None:
            zygote_process.stop(process, writer)
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=5)
        self._fail_pending(SandboxUnavailable("the sandbox pool was closed"))

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- jobs -------------------------------------------------------------------------

    def submit(self, job: Job) -> Future[RunResult]:
        """Queue one submission; returns at once. Raises PoolSaturated when full."""
        return self.submit_all([job])[0]

    def submit_all(self, jobs: list[Job], background: bool = False) -> list[Future[RunResult]]:
        """Queue jobs that belong together (a Submit's learner, reference and check jobs): all
        of them or, raising PoolSaturated, none, so a refusal never leaves one running alone.

        ``background`` jobs (work done ahead, which no one waits for yet) start in the slow
        lane, at the lowest CPU priority: they use idle cores only, never a grade's."""
        with self._encoding:  # case inputs other jobs shared, encoded once
            prepared = [self._prepare(job, self._encoded) for job in jobs]
        for pending in prepared:
            pending.demoted = pending.record.demoted = background
            while len(self._encoded) > ENCODED_CASES:
                self._encoded.pop(next(iter(self._encoded)))
        with self._lock:
            if self._closed:
                raise SandboxUnavailable("the sandbox pool is closed")
            # Parked jobs do not hold a fast slot, but no more than the slow lane's worth are
            # left out of the count: a demoted job whose child ended starts again, and when the
            # slow lane is full it waits in the fast queue (192 in flight).
            parked = min(self.slow_lane, sum(job.demoted for job in self._pending.values()))
            waiting = len(self._pending) - parked
            # A group larger than the whole bound (a Submit's four jobs with one worker and a
            # queue of one) is taken by an idle pool, or it could never run at all.
            if waiting + len(jobs) > self.workers + self.queue_size and waiting > 0:
                raise PoolSaturated(f"all {self.workers} workers busy and the queue is full")
            for job in jobs:
                self._memory_mb = max(self._memory_mb, job.limits.memory_mb)
            if self._process is None or self._process.poll() is not None:
                self._restart_soon()
                raise SandboxUnavailable("the sandbox is restarting; retry shortly")
            ids: list[int] = []
            try:
                for pending, job in zip(prepared, jobs, strict=True):
                    job_id = next(self._ids)
                    self._pending[job_id] = pending
                    ids.append(job_id)
                    key = pending.helpers_key
                    if key is not None and key not in self._helpers_sent:
                        self._send_compiled(protocol.CompileOrder(key), job.helpers)
                    sources = trusted_sources(job)
                    for filename, key in pending.trusted_keys.items():
                        if key not in self._helpers_sent:
                            order = protocol.CompileOrder(key, filename)
                            self._send_compiled(order, sources[filename])
                    self._send_run(job_id, pending, 0)
            except SandboxUnavailable:
                for job_id in ids:
                    del self._pending[job_id]
                raise
        for job_id, job in zip(ids, jobs, strict=True):
            if not job.cases:
                self._settle(job_id)
        return [pending.future for pending in prepared]

    @staticmethod
    def _prepare(job: Job, encoded: dict[int, tuple[Any, str]]) -> _Pending:
        """A job's frame body and bookkeeping, built before the lock is taken."""
        body = job.body(encoded)
        helpers_key = (
            hashlib.sha256(job.helpers.encode("utf-8", "surrogatepass")).hexdigest()
            if job.helpers
            else None
        )
        record = JobRecord(total=len(job.cases), limits=job.limits)
        trusted = {
            filename: trusted_key(filename, source)
            for filename, source in trusted_sources(job).items()
        }
        generator = job.random_mode is RandomMode.generator
        return _Pending(Future(), record, body, helpers_key, trusted, generator=generator)

    def _send_compiled(self, order: protocol.CompileOrder, source: str) -> None:
        """Have the zygote compile an exercise's own code once, for every later child: its
        helpers (by the learner policy) or its driver or trace (plain Python). Each submission
        then compiles only its own source (caller holds the lock)."""
        self._write(protocol.encode_order(order, source.encode("utf-8", "surrogatepass")))
        self._helpers_sent.add(order.key)

    def _send_run(self, job_id: int, pending: _Pending, first_case: int) -> None:
        """Ask the zygote to run a job from ``first_case`` on (caller holds the lock)."""
        order = protocol.RunOrder(
            job=job_id,
            first_case=first_case,
            cases=pending.record.total,
            limits=pending.record.limits,
            helpers_key=pending.helpers_key,
            trusted_keys=pending.trusted_keys,
            # What the job's earlier children used of its one budget, and where it runs now.
            spent_cpu_ms=pending.record.spent_cpu_ms,
            spent_wall_ms=pending.record.spent_wall_ms,
            slow=pending.demoted,
            long=DRIVER_FILENAME in pending.trusted_keys,
            generator=pending.generator,
        )
        self._write(protocol.encode_order(order, pending.body))

    def _write(self, frame: bytes) -> None:
        """Queue a frame for the zygote (never blocks; caller holds the lock)."""
        if self._process is None or self._writer is None or self._process.poll() is not None:
            raise SandboxUnavailable("the sandbox is not reachable")
        self._writer.put(frame)

    def run(self, job: Job, timeout: float | None = None) -> RunResult:
        """Blocking convenience around submit()."""
        return self.submit(job).result(timeout)

    def _read_results(
        self, process: subprocess.Popen[bytes], reader: framing.FrameReader, writer: Writer
    ) -> None:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        try:
            while True:
                data = os.read(fd, framing.READ_CHUNK)
                if not data:
                    break
                for payload in reader.feed_raw(data):
                    header, body = framing.split_body(payload)
                    try:
                        event = protocol.parse_event(header)
                    except protocol.BadMessage as exc:
                        if exc.job is not None:
                            error = SandboxUnavailable(f"invalid sandbox report: {exc}")
                            self._settle(exc.job, error)
                        continue
                    self._deliver(event, body)
        except Exception:  # noqa: BLE001 - whatever broke, pending work must fail, not hang
            pass
        with self._lock:
            if self._process is process:
                self._process = None
            lost = list(self._pending)  # all of them were this zygote's
        zygote_process.stop(process, writer)  # also reaps a dead one and closes its pipes
        self._fail_pending(SandboxUnavailable("the sandbox stopped while grading"), lost)
        with self._lock:
            self._restart_soon()  # now, not when the next submission finds it gone

    def _deliver(self, event: protocol.Event, mailbox: bytes) -> None:
        """One child's end, relayed by the zygote: validate, then finish or run the rest."""
        if isinstance(event, protocol.ZygoteReady) or event.job is None:
            return
        job_id = event.job
        with self._lock:
            pending = self._pending.get(job_id)
        if pending is None:
            return
        if isinstance(event, protocol.Demoted):
            with self._lock:
                pending.demoted = True
                pending.record.demoted = True
            return
        if isinstance(event, protocol.JobRefused):
            self._settle(job_id, SandboxUnavailable(event.error))
            return
        try:
            following = pending.record.absorb(event, mailbox)
        except (framing.ProtocolError, RecursionError, MemoryError) as exc:
            self._settle(job_id, SandboxUnavailable(f"invalid sandbox report: {exc}"))
            return
        except KilledFromOutside as exc:  # twice: no verdict, the API's 503 with Retry-After
            self._settle(job_id, SandboxUnavailable(str(exc)))
            return
        if following is not None:
            with self._lock:
                try:
                    self._send_run(job_id, pending, following)
                    return
                except SandboxUnavailable as exc:
                    error: Exception | None = exc
            self._settle(job_id, error)
            return
        self._settle(job_id)

    def _settle(self, job_id: int, error: Exception | None = None) -> None:
        with self._lock:
            pending = self._pending.pop(job_id, None)
            if pending is not None and error is None:
                self._completed += 1
        if pending is None or pending.future.done():
            return
        if error is not None:
            pending.future.set_exception(error)
        else:
            pending.future.set_result(pending.record.result())

    def _fail_pending(self, error: Exception, only: list[int] | None = None) -> None:
        """Fail every job in flight (or those of ``only``: a dead zygote's, not its successor's)."""
        with self._lock:
            if only is None:
                waiting, self._pending = self._pending, {}
            else:
                waiting = {job: self._pending.pop(job) for job in only if job in self._pending}
        for pending in waiting.values():
            if not pending.future.done():
                pending.future.set_exception(error)

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

    def lanes(self) -> dict[str, dict[str, int]]:
        """Each lane's use and bound (the host's view: a job is fast until the zygote says it
        was demoted; fast jobs beyond the fast slots are waiting in the queue)."""
        with self._lock:
            slow = sum(job.demoted for job in self._pending.values())
            others = len(self._pending) - slow
        return {
            "fast": {"in_use": min(others, self.workers), "capacity": self.workers},
            "slow": {
                "in_use": slow,
                "capacity": self.slow_lane,
                # what the parked children may hold at most, on top of their warm interpreter
                "memory_mb_bound": self.slow_lane * self._memory_mb,
            },
            "queue": {"in_use": max(0, others - self.workers), "capacity": self.queue_size},
        }

    def status(self) -> dict[str, Any]:
        lanes = self.lanes()
        with self._lock:
            alive = self._process is not None and self._process.poll() is None
            return {
                "alive": alive and not self._closed,
                "workers": self.workers,
                "capacity": self.capacity,
                "lanes": lanes,
                "in_flight": len(self._pending),
                "completed": self._completed,
                "restarts": self._restarts,
                "zygote_pid": self._process.pid if alive and self._process else None,
            }
