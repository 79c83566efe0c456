"""The warm zygote: a clean interpreter that imports and warms everything once, then forks
confined children, hands each one job, keeps each job's time budget and its lane (fast, or
demoted to the slow lane), and reports how each child ended.

It runs as its own process (started by ``sandbox.pool``), never holds the web app's memory and
never runs learner code itself. Children are forked and confined *before* there is work for
them (spares), so fork, confinement and their page faults stay off the grading path. A child
reports through a shared-memory mailbox (``sandbox.mailbox``); the zygote wakes only when a
child exits or a budget could be spent, and relays the mailbox to the host unparsed: the host, not
the zygote, validates it. Keeping the zygote's own work small matters: every page it writes
while children share its memory costs a copy-on-write fault.
"""

from __future__ import annotations

import _signal
import gc
import os
import selectors
import signal
import sys
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from sandbox import forking, framing, heap, protocol
from sandbox.attempts import Attempt, Spare, spare_wanted
from sandbox.budget import MIN_CHECK_S, cpu_seconds, demote, undemote
from sandbox.child import receive_assignment, run_job
from sandbox.confine import Confinement, default_read_paths
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner
from sandbox.protocol import Assignment, RunOrder
from sandbox.rehearsal import rehearse
from sandbox.warmup import warm_up

HELPERS_ENTRIES = 32  # exercises whose helpers the zygote keeps compiled
# The zygote and its children yield the CPU to the web process: forking spares and tearing
# down finished children must not delay the host reading a result (learner code gets the
# same share as before relative to other learners).
NICENESS = 5
CONTROL_IN = 0
CONTROL_OUT = 1


class Zygote:
    def __init__(self, workers: int, slow_lane: int | None = None) -> None:
        self.workers = workers  # fast slots: children at normal priority, one per core
        self.slow_lane = 4 * workers if slow_lane is None else slow_lane  # parked children
        self.policy = Policy()
        self.confinement = Confinement(default_read_paths())
        self.selector = selectors.DefaultSelector()
        self.queue: deque[tuple[RunOrder, bytes]] = deque()
        self.attempts: dict[int, Attempt] = {}  # by exit fd
        self.spares: deque[Spare] = deque()
        self.recent_limits: Limits | None = None
        # Whether the next spares rehearse the job with helpers, arrays and generators
        # (sandbox/rehearsal.py): the last job came with an exercise's helpers or drew from a
        # generator.
        self.rehearse_with_helpers = False
        self.control = framing.FrameReader()
        # Exercises' helpers, compiled once: trusted code, the same for every learner. No
        # learner's code is ever kept here: every later child is forked from this memory.
        self.helpers: OrderedDict[str, Any] = OrderedDict()
        # Their distribution drivers and traces too (plain Python), by key: file name and text.
        self.trusted: OrderedDict[str, Any] = OrderedDict()
        self.dying: set[int] = set()
        self.stopping = False
        self.layers = dict(self.confinement.available(), policy=True)

    # -- warm-up ----------------------------------------------------------------------

    def warm(self) -> None:
        """Touch everything a child will use, then freeze the heap, so forks start hot."""
        warm_up(self.policy)
        gc.collect()
        gc.freeze()  # keep the warm heap out of the children's collections: fewer COW copies
        heap.collapse()  # last, once the heap has its warm size
        forking.lean_fork()  # glibc's fork from now on, if this process runs one thread

    # -- control channel --------------------------------------------------------------

    def send(self, event: protocol.Event, body: bytes = b"") -> None:
        view = memoryview(protocol.encode_event(event, body))
        try:
            while view:
                view = view[os.write(CONTROL_OUT, view) :]
        except BrokenPipeError:
            # The host is gone (killed: its end of the pipe closed with it). Nobody is left to
            # tell; stop as when its stdin ends, quietly.
            self.stopping = True

    def on_control(self) -> None:
        data = os.read(CONTROL_IN, framing.READ_CHUNK)
        if not data:
            self.stopping = True
            return
        for payload in self.control.feed_raw(data):
            header, body = framing.split_body(payload)
            try:
                order = protocol.parse_order(header)
            except protocol.BadMessage as exc:
                self.send(protocol.JobRefused(exc.job, str(exc)))
                continue
            except framing.ProtocolError:
                continue  # not an order the host sends: ignored
            if isinstance(order, RunOrder):
                if order.slow and self.slow_in_use() < self.slow_lane:
                    # The rest of a demoted job (after a crash): straight back to the slow lane.
                    self.start(order, body, slow=True)
                else:
                    self.queue.append((order, body))
            elif isinstance(order, protocol.CompileOrder):
                if order.filename is None:
                    self.remember_helpers(order.key, body)
                else:
                    self.remember_trusted(order.key, order.filename, body)
            elif isinstance(order, protocol.StopOrder):
                self.stopping = True
        self.dispatch()

    def slow_in_use(self) -> int:
        return sum(attempt.slow for attempt in self.attempts.values())

    def fast_in_use(self) -> int:
        return len(self.attempts) - self.slow_in_use()

    def dispatch(self) -> None:
        while self.queue and self.fast_in_use() < self.workers:
            order, body = self.queue.popleft()
            self.start(order, body, slow=False)

    def start(self, order: RunOrder, body: bytes, *, slow: bool) -> None:
        attempt = self.assign(order, body)
        if slow:
            attempt.slow = True
            demote(attempt.spare.pid)

    def remember_helpers(self, key: str, body: bytes) -> None:
        """Compile an exercise's helpers (the host's own code, never a learner's) once."""
        _remember(
            self.helpers,
            key,
            lambda: compile_learner(body.decode("utf-8"), HELPERS_FILENAME),
            HELPERS_ENTRIES,
        )

    def remember_trusted(self, key: str, filename: str, body: bytes) -> None:
        """Compile an exercise's driver or trace (the host's own code) once, as plain Python."""
        _remember(
            self.trusted,
            key,
            lambda: compile(body.decode("utf-8"), filename, "exec"),
            2 * HELPERS_ENTRIES,
        )

    # -- children -----------------------------------------------------------------------

    def fork_spare(self, limits: Limits) -> Spare:
        mailbox = Mailbox(limits.reply_bytes)
        job_read, job_write = os.pipe()
        exit_read, exit_write = os.pipe()
        pid = forking.fork()
        if pid == 0:  # the child: never returns
            os.close(job_write)
            os.close(exit_read)
            self._child_main(limits, job_read, exit_write, mailbox)
        os.close(job_read)
        os.close(exit_write)
        return Spare(pid, job_write, exit_read, mailbox, limits)

    def spares_short(self) -> bool:
        # Never while jobs wait: a spare forked then would carry their code in its memory.
        return (
            not self.stopping
            and not self.queue
            and self.recent_limits is not None
            and len(self.spares) < self.workers
        )

    def spare_due(self) -> bool:
        """Whether to fork a spare now (``spare_wanted``, while one may be forked at all)."""
        fast = [attempt for attempt in self.attempts.values() if not attempt.slow]
        return self.spares_short() and spare_wanted(fast, len(self.spares))

    def replenish(self) -> None:
        """Fork one spare if fewer than one per worker wait.

        Called only when nothing else is pending: a fork takes milliseconds here, and a child
        that just finished should not wait for it to be noticed.
        """
        if self.spares_short():
            assert self.recent_limits is not None
            self.spares.append(self.fork_spare(self.recent_limits))

    def discard(self, spare: Spare) -> None:
        os.close(spare.job_fd)
        self.kill(spare.pid)
        os.close(spare.exit_fd)
        spare.mailbox.close()

    def take_spare(self, limits: Limits) -> Spare:
        for spare in list(self.spares):
            if spare.limits == limits:
                self.spares.remove(spare)
                if _exited(spare.pid):  # killed while it waited (the OOM killer, an operator)
                    self.discard(spare)
                    continue
                return spare
        return self.fork_spare(limits)

    def assign(self, order: RunOrder, body: bytes) -> Attempt:
        """Hand one job (from its first case on) to a confined child."""
        self.recent_limits = order.limits
        self.rehearse_with_helpers = order.helpers_key is not None or order.generator
        spare = self.take_spare(order.limits)
        routing = Assignment(order.first_case, order.helpers_key, order.trusted_keys)
        assignment = protocol.encode_assignment(routing, body)
        # Before the job is written: a child on the other core can finish it before the next
        # line of this process runs, and a clock read after that counted no CPU for its job.
        cpu_start = cpu_seconds(spare.pid) or 0.0
        try:
            view = memoryview(assignment)
            while view:
                view = view[os.write(spare.job_fd, view) :]
        except OSError:
            pass  # the child died waiting: its exit is reported like any other
        finally:
            os.close(spare.job_fd)
        attempt = Attempt(
            order.job,
            spare,
            order.first_case,
            order.cases,
            time.monotonic(),
            spent_cpu=order.spent_cpu_ms / 1000,
            spent_wall=order.spent_wall_ms / 1000,
            cpu_start=cpu_start,
            long=order.long,
        )
        self.attempts[spare.exit_fd] = attempt
        self.selector.register(spare.exit_fd, selectors.EVENT_READ, attempt)
        return attempt

    def _child_main(self, limits: Limits, job_fd: int, exit_fd: int, mailbox: Mailbox) -> None:
        status = 0
        try:
            os.setsid()
            # The C functions, with plain ints: signal.signal's wrapper converts to and from
            # enums, Python code that wrote ~25 pages of a child that never needs it again.
            _signal.signal(_signal.SIGTERM, _signal.SIG_DFL)
            _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
            gc.disable()  # a child lives for one job: collecting would only copy pages
            self.selector = None  # type: ignore[assignment]  # the zygote's, not ours
            # Other children's mailboxes are mapped here too (inherited): unmap them, or this
            # child could write into a sibling's reply.
            for other in [*self.spares, *(attempt.spare for attempt in self.attempts.values())]:
                other.mailbox.close()
            self.queue.clear()
            self.attempts.clear()
            self.spares.clear()
            layers = self.confinement.apply(limits, keep_fds=[job_fd, exit_fd])
            mailbox.send(protocol.Hello(dict(layers, policy=True)))
            # While idle: pay the page copies now, along the path the next job likely takes.
            rehearse(self.policy, job_fd, self.rehearse_with_helpers)
            assignment, job = receive_assignment(job_fd)
            os.close(job_fd)
            helpers = self.helpers.get(str(assignment.helpers_key))
            trusted = {
                filename: self.trusted[key]
                for filename, key in assignment.trusted_keys.items()
                if key in self.trusted
            }
            run_job(job, mailbox, self.policy, assignment.first_case, helpers, trusted)
            # Settle this child's CPU count before the zygote reads it: seen from another core,
            # a running child's count moves only at a tick or when it stops running, so a
            # short job read as its child exits could count no CPU at all. Reading its own
            # thread clock brings it up to date (its process clock does not, while
            # RLIMIT_CPU's timer is armed).
            time.thread_time()
            # Say so, close the exit pipe and exit: tearing down this address space takes
            # milliseconds, and nobody needs to wait for it.
            mailbox.mark_done()
            os.close(exit_fd)
        except BaseException:  # noqa: BLE001 - a child must never return into the zygote loop
            status = 70
        finally:
            os._exit(status)

    def on_exit_fd(self, attempt: Attempt) -> None:
        if self.attempts.get(attempt.spare.exit_fd) is not attempt:
            return  # finished earlier in this round of events
        try:
            if os.read(attempt.spare.exit_fd, framing.READ_CHUNK):
                return  # a child has no business writing here; only end-of-file counts
        except OSError:
            pass
        self.finish(attempt)

    @staticmethod
    def signal_group(pid: int) -> None:
        """SIGKILL a child's whole process group, and the child itself."""
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def kill(self, pid: int) -> int:
        """Kill a child's group, reap it, return its wait status."""
        self.signal_group(pid)
        _, status = os.waitpid(pid, 0)
        return status

    def reap(self, block: bool = False) -> None:
        """Collect children already killed after they reported (never left as zombies)."""
        for pid in list(self.dying):
            try:
                reaped, _ = os.waitpid(pid, 0 if block else os.WNOHANG)
            except ChildProcessError:
                reaped = pid
            if reaped:
                self.dying.discard(pid)

    def finish(self, attempt: Attempt) -> None:
        """The child is done (or must be): kill its group, reap it, relay its mailbox."""
        spare = attempt.spare
        cpu_ms = (attempt.cpu_used() - attempt.spent_cpu) * 1000  # read before the kill
        self.selector.unregister(spare.exit_fd)
        del self.attempts[spare.exit_fd]
        if spare.mailbox.done() and not attempt.timed_out:
            # It finished and said so: kill it now, reap it later, report at once. (Its exit
            # status tells nothing more; waiting would cost its whole teardown.)
            self.signal_group(spare.pid)
            self.dying.add(spare.pid)
            status = 0
        elif attempt.timed_out:
            # Stopped for its budget: the verdict is known, so report at once and reap later.
            # Waiting here would wait for a demoted child's exit at the lowest CPU priority,
            # which on a busy machine holds up every other child's report; it gets a normal
            # priority back so that it dies promptly (where the zygote may grant that).
            if attempt.slow:
                undemote(spare.pid)
            self.signal_group(spare.pid)
            self.dying.add(spare.pid)
            status = signal.SIGKILL  # the wait status of a child killed by SIGKILL
        else:
            status = self.kill(spare.pid)
        os.close(spare.exit_fd)
        running, _ = spare.mailbox.running()
        report = protocol.AttemptReport(
            job=attempt.job_id,
            first_case=attempt.first_case,
            status=status,
            running=running,
            timed_out=attempt.timed_out,
            overflowed=spare.mailbox.overflowed(),
            elapsed_ms=(time.monotonic() - attempt.assigned) * 1000,
            cpu_ms=cpu_ms,
        )
        self.send(report, spare.mailbox.raw())
        spare.mailbox.close()
        self.dispatch()

    def evict_parked(self, now: float) -> bool:
        """Make room in a full slow lane: stop the parked job nearest its wall-clock backstop.

        Parked children run at the lowest priority and, on a busy machine, mostly wait for their
        backstop; one that keeps a fast slot because the lane is full holds up every short job
        behind it (a few looping learners multiplied a correct run's p50: docs/performance.md).
        The one evicted is the one that would end soonest anyway,
        so a long legitimate job (the distribution check's budget is larger) goes last.
        """
        parked = [a for a in self.attempts.values() if a.slow and not a.timed_out]
        if not parked:
            return False
        victim = min(parked, key=lambda a: a.spare.limits.wall_ms / 1000 - a.wall_used(now))
        victim.timed_out = True
        self.finish(victim)
        return True

    def check_budgets(self) -> float | None:
        """Stop every job past its budget and demote every fast one that has run long;
        returns seconds until one of them could be due again (None: nothing to watch)."""
        now = time.monotonic()
        used = {attempt: attempt.cpu_used() for attempt in self.attempts.values()}
        for attempt, cpu in list(used.items()):
            if attempt.budget_left(now, cpu) <= 0:
                attempt.timed_out = True
                self.finish(attempt)
                del used[attempt]
        room = self.slow_lane - self.slow_in_use()
        demoted = False
        pressed = bool(self.queue)
        for attempt, cpu in list(used.items()):
            if attempt.slow or attempt.demotion_left(now, cpu, pressed) > 0:
                continue
            if room <= 0 and not self.evict_parked(now):
                continue
            room = max(room, 1)
            attempt.slow, demoted = True, True
            room -= 1
            demote(attempt.spare.pid)
            self.send(protocol.Demoted(attempt.job_id))
        if demoted:
            self.dispatch()  # the fast slots just freed
        if not self.attempts:
            return None
        # Jobs started meanwhile (a kill frees a slot) have no reading yet: they get one here.
        waits = [a.budget_left(now, used.get(a)) for a in self.attempts.values()]
        if room > 0:  # a full slow lane frees only when a child exits, which wakes us anyway
            waits += [
                a.demotion_left(now, used.get(a), bool(self.queue))
                for a in self.attempts.values()
                if not a.slow
            ]
        return max(MIN_CHECK_S, min(waits))

    # -- main loop ----------------------------------------------------------------------

    def serve(self) -> None:
        self.selector.register(CONTROL_IN, selectors.EVENT_READ, None)
        self.send(
            protocol.ZygoteReady(
                pid=os.getpid(),
                layers=self.layers,
                reasons=self.confinement.reasons(),
                landlock_abi=self.confinement.landlock_abi,
            )
        )
        timeout: float | None = None
        while not self.stopping:
            events = self.selector.select(timeout)
            for key, _ in events:
                if key.data is None:
                    self.on_control()
                elif not self.stopping:
                    self.on_exit_fd(key.data)
            timeout = self.check_budgets()
            if self.spare_due():
                if not events:
                    self.replenish()
                if self.spare_due():
                    timeout = 0  # poll: fork the next spare only if nothing else is waiting
            if self.dying:
                self.reap()
                if self.dying and (timeout is None or timeout > 0.05):
                    timeout = 0.05  # come back for the last ones
        self.reap(block=True)
        for attempt in list(self.attempts.values()):
            self.kill(attempt.spare.pid)  # nothing outlives the zygote
        while self.spares:
            self.discard(self.spares.popleft())
        self.confinement.close()


def _exited(pid: int) -> bool:
    """Whether a child of ours has ended, without reaping it (``discard`` reaps it)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _remember(
    cache: OrderedDict[str, Any], key: str, compiling: Callable[[], Any], most: int
) -> None:
    """Keep what ``compiling()`` gives under ``key``, the oldest entries dropped past ``most``.
    A failure keeps nothing: a child then compiles the source itself, and reports."""
    try:
        cache[key] = compiling()
    except Exception:  # noqa: BLE001
        return
    while len(cache) > most:
        cache.popitem(last=False)


def main() -> None:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    slow_lane = int(sys.argv[2]) if len(sys.argv) > 2 else None
    # The host's death closes our stdin, which stops the loop and kills every child. (No
    # parent-death signal here: it would follow the host *thread* that started us.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICENESS)
    zygote = Zygote(workers, slow_lane)
    zygote.warm()
    zygote.serve()


if __name__ == "__main__":
    main()
