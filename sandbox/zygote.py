"""The warm zygote: a clean interpreter that imports and warms everything once, then forks
confined children, hands each one job, enforces deadlines and reports how each child ended.

It runs as its own process (started by ``sandbox.pool``), never holds the web app's memory and
never runs learner code itself. Children are forked and confined *before* there is work for
them (spares), so fork, confinement and their page faults stay off the grading path. A child
reports through a shared-memory mailbox (``sandbox.mailbox``); the zygote wakes only when a
child exits or a deadline passes, and relays the mailbox to the host unparsed: the host, not
the zygote, validates it. Keeping the zygote's own work small matters: every page it writes
while children share its memory costs a copy-on-write fault.
"""

from __future__ import annotations

import gc
import os
import select
import selectors
import signal
import sys
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Any

from sandbox import protocol
from sandbox.child import receive_assignment, rehearse, run_job
from sandbox.confine import Confinement, default_read_paths
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner
from sandbox.warmup import warm_up

HELPERS_ENTRIES = 32  # exercises whose helpers the zygote keeps compiled
# The zygote and its children yield the CPU to the web process: forking spares and tearing
# down finished children must not delay the host reading a result (learner code gets the
# same share as before relative to other learners).
NICENESS = 5
CONTROL_IN = 0
CONTROL_OUT = 1


@dataclass
class Spare:
    """A forked, confined child waiting for its one job."""

    pid: int
    job_fd: int  # the zygote writes the assignment here
    exit_fd: int  # never written by the child: end-of-file means it has exited
    mailbox: Mailbox
    limits: Limits


@dataclass
class Attempt:
    """One child working on one job, from a given case on."""

    job_id: int
    spare: Spare
    first_case: int
    cases: int
    assigned: float
    timed_out: bool = False

    def deadline(self, now: float) -> float:
        """When this child must be stopped, by the zygote's clock and the child's claims.

        The child says which case it runs and since when; the claim only moves the deadline
        within bounds set here: never before the assignment, never in the future, never past
        one full budget per remaining case. The first case of a child shares its budget with
        everything before it (compiling, the module's top level): a top level that burns most
        of a budget would otherwise get a free budget in every fresh child of the same job.
        """
        budget = self.spare.limits.time_ms / 1000
        running, started = self.spare.mailbox.running()
        begin = (
            min(max(started, self.assigned), now) if running > self.first_case else self.assigned
        )
        remaining = self.cases - self.first_case
        return min(begin + budget, self.assigned + budget * (remaining + 1))


class Zygote:
    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.policy = Policy()
        self.confinement = Confinement(default_read_paths())
        self.selector = selectors.DefaultSelector()
        self.queue: deque[tuple[dict[str, Any], bytes]] = deque()
        self.attempts: dict[int, Attempt] = {}  # by exit fd
        self.spares: deque[Spare] = deque()
        self.recent_limits: Limits | None = None
        self.control = protocol.FrameReader()
        # Exercises' helpers, compiled once: trusted code, the same for every learner. No
        # learner's code is ever kept here: every later child is forked from this memory.
        self.helpers: OrderedDict[str, Any] = OrderedDict()
        self.dying: set[int] = set()
        self.stopping = False
        self.layers = dict(self.confinement.available(), policy=True)

    # -- warm-up ----------------------------------------------------------------------

    def warm(self) -> None:
        """Touch everything a child will use, then freeze the heap, so forks start hot."""
        warm_up(self.policy)
        gc.collect()
        gc.freeze()  # keep the warm heap out of the children's collections: fewer COW copies

    # -- control channel --------------------------------------------------------------

    def send(self, header: dict[str, Any], body: bytes = b"") -> None:
        view = memoryview(protocol.encode_with_body(header, body))
        while view:
            view = view[os.write(CONTROL_OUT, view) :]

    def on_control(self) -> None:
        data = os.read(CONTROL_IN, protocol.READ_CHUNK)
        if not data:
            self.stopping = True
            return
        for payload in self.control.feed_raw(data):
            header, body = protocol.split_body(payload)
            op = header.get("op")
            if op == "run":
                self.queue.append((header, body))
            elif op == "helpers":
                self.remember_helpers(str(header.get("key")), body)
            elif op == "stop":
                self.stopping = True
        self.dispatch()

    def dispatch(self) -> None:
        while self.queue and len(self.attempts) < self.workers:
            header, body = self.queue.popleft()
            try:
                limits = Limits(**header["limits"])
                self.assign(header, limits, body)
            except (KeyError, TypeError, ValueError) as exc:
                self.send({"job": header.get("job"), "error": f"bad job: {exc}"})

    def remember_helpers(self, key: str, body: bytes) -> None:
        """Compile an exercise's helpers (the host's own code, never a learner's) once."""
        try:
            self.helpers[key] = compile_learner(body.decode("utf-8"), HELPERS_FILENAME)
        except Exception:  # noqa: BLE001 - a child then compiles them itself, and reports
            return
        while len(self.helpers) > HELPERS_ENTRIES:
            self.helpers.popitem(last=False)

    # -- children -----------------------------------------------------------------------

    def fork_spare(self, limits: Limits) -> Spare:
        mailbox = Mailbox(limits.reply_bytes)
        job_read, job_write = os.pipe()
        exit_read, exit_write = os.pipe()
        pid = os.fork()
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
        """Whether to fork a spare now.

        A fork costs the zygote milliseconds and busies a core with the new child's set-up.
        Done while a child runs, it delays noticing that child's end by about as much (measured:
        about 1 ms of a 8 ms grade at light load), so a spare is forked only while no child
        runs, or when none waits at all. A job that finds no spare gets a child forked on demand.
        """
        return self.spares_short() and (not self.attempts or not self.spares)

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
        for spare in self.spares:
            if spare.limits == limits:
                self.spares.remove(spare)
                return spare
        return self.fork_spare(limits)

    def assign(self, header: dict[str, Any], limits: Limits, body: bytes) -> None:
        """Hand one job (from its first case on) to a confined child."""
        self.recent_limits = limits
        spare = self.take_spare(limits)
        first_case = int(header["first_case"])
        routing = {"first_case": first_case, "helpers_key": header.get("helpers_key")}
        assignment = protocol.encode_with_body(routing, body)
        try:
            view = memoryview(assignment)
            while view:
                view = view[os.write(spare.job_fd, view) :]
        except OSError:
            pass  # the child died waiting: its exit is reported like any other
        finally:
            os.close(spare.job_fd)
        attempt = Attempt(
            int(header["job"]), spare, first_case, int(header["cases"]), time.monotonic()
        )
        self.attempts[spare.exit_fd] = attempt
        self.selector.register(spare.exit_fd, selectors.EVENT_READ, attempt)

    def _child_main(self, limits: Limits, job_fd: int, exit_fd: int, mailbox: Mailbox) -> None:
        status = 0
        try:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
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
            mailbox.send({"t": "hello", "layers": dict(layers, policy=True)})
            if not select.select([job_fd], [], [], 0)[0]:
                rehearse(self.policy)  # idle: pay the page copies now
            header, job = receive_assignment(job_fd)
            os.close(job_fd)
            helpers = self.helpers.get(str(header.get("helpers_key")))
            run_job(job, mailbox, self.policy, header["first_case"], helpers)
            # Say so, and close the exit pipe now: tearing down this address space takes
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
            if os.read(attempt.spare.exit_fd, protocol.READ_CHUNK):
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
        self.selector.unregister(spare.exit_fd)
        del self.attempts[spare.exit_fd]
        if spare.mailbox.done() and not attempt.timed_out:
            # It finished and said so: kill it now, reap it later, report at once. (Its exit
            # status tells nothing more; waiting would cost its whole teardown.)
            self.signal_group(spare.pid)
            self.dying.add(spare.pid)
            status = 0
        else:
            status = self.kill(spare.pid)
        os.close(spare.exit_fd)
        running, _ = spare.mailbox.running()
        report = {
            "job": attempt.job_id,
            "first_case": attempt.first_case,
            "status": status,
            "running": running,
            "timed_out": attempt.timed_out,
            "overflowed": spare.mailbox.overflowed(),
            "elapsed_ms": (time.monotonic() - attempt.assigned) * 1000,
        }
        self.send(report, spare.mailbox.raw())
        spare.mailbox.close()
        self.dispatch()

    def check_deadlines(self) -> float | None:
        """Stop every child past its deadline; returns seconds until the next one."""
        now = time.monotonic()
        for attempt in list(self.attempts.values()):
            if now >= attempt.deadline(now):
                attempt.timed_out = True
                self.finish(attempt)
        if not self.attempts:
            return None
        now = time.monotonic()
        soonest = min(attempt.deadline(now) for attempt in self.attempts.values())
        return max(0.0, soonest - now)

    # -- main loop ----------------------------------------------------------------------

    def serve(self) -> None:
        self.selector.register(CONTROL_IN, selectors.EVENT_READ, None)
        self.send(
            {
                "event": "ready",
                "pid": os.getpid(),
                "layers": self.layers,
                "reasons": self.confinement.reasons(),
                "landlock_abi": self.confinement.landlock_abi,
            }
        )
        timeout: float | None = None
        while not self.stopping:
            events = self.selector.select(timeout)
            for key, _ in events:
                if key.data is None:
                    self.on_control()
                elif not self.stopping:
                    self.on_exit_fd(key.data)
            timeout = self.check_deadlines()
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


def main() -> None:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    # The host's death closes our stdin, which stops the loop and kills every child. (No
    # parent-death signal here: it would follow the host *thread* that started us.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(NICENESS)
    zygote = Zygote(workers)
    zygote.warm()
    zygote.serve()


if __name__ == "__main__":
    main()
