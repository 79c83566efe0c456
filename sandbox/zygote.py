"""The warm zygote: a clean interpreter that imports and warms everything once, then forks one
confined child per submission, watches its deadlines and reports its raw results.

It runs as its own process (started by ``sandbox.pool``), never holds the web app's memory and
never runs learner code itself. Requests arrive as frames on stdin, results leave on stdout.

Children are forked and confined *before* there is work for them (spares), then handed one
job each over a pipe, so fork, confinement and their page faults stay off the grading path.
A child reports through a shared-memory mailbox (``sandbox.mailbox``); the zygote wakes when
a child exits or a deadline passes, reads the mailbox, validates it, and moves on.
"""

from __future__ import annotations

import gc
import hashlib
import os
import selectors
import signal
import sys
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from sandbox import protocol
from sandbox.confine import Confinement, default_read_paths
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner

# A source is compiled in the zygote only after a confined child compiled, loaded and ran it
# this fast: a compiler-crashing or pathological source never reaches the zygote's compiler.
CACHE_ATTEMPT_MS = 40.0
CACHE_ENTRIES = 128
CONTROL_IN = 0
CONTROL_OUT = 1
READ_CHUNK = 65536


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
    assigned: float
    timed_out: bool = False

    @property
    def limits(self) -> Limits:
        return self.spare.limits


@dataclass
class JobState:
    job: dict[str, Any]
    limits: Limits
    started: float
    key: str
    layers: dict[str, bool] = field(default_factory=dict)
    setup: dict[str, Any] | None = None
    cases: dict[int, dict[str, Any]] = field(default_factory=dict)


def describe_exit(status: int) -> str:
    """A learner-facing sentence for how a child process ended."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        names = {
            signal.SIGSEGV: "a segmentation fault (the process touched invalid memory)",
            signal.SIGBUS: "a bus error",
            signal.SIGABRT: "an abort",
            signal.SIGFPE: "a floating-point exception",
            signal.SIGKILL: "being killed",
            signal.SIGXCPU: "running out of CPU time",
            signal.SIGILL: "an illegal instruction",
        }
        return f"the process running your code ended with {names.get(number, f'signal {number}')}"
    if os.WIFEXITED(status):
        return (
            f"the process running your code exited early (exit code {os.WEXITSTATUS(status)}) "
            "before this case finished"
        )
    return "the process running your code ended unexpectedly"


class Zygote:
    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.policy = Policy()
        self.confinement = Confinement(default_read_paths())
        self.selector = selectors.DefaultSelector()
        self.queue: deque[tuple[int, dict[str, Any]]] = deque()
        self.jobs: dict[int, JobState] = {}
        self.attempts: dict[int, Attempt] = {}  # by exit fd
        self.spares: deque[Spare] = deque()
        self.recent_limits: Limits | None = None
        self.control = protocol.FrameReader()
        self.compiled: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self.stopping = False
        self.layers = dict(self.confinement.available(), policy=True)

    # -- warm-up ----------------------------------------------------------------------

    def warm(self) -> None:
        """Touch everything a child will use so forks start hot (imports, compiler, numpy)."""
        import json

        import numpy as np

        sample = "import numpy as np\ndef f(a):\n    np.random.seed(1)\n    x = [i for i in a]\n    x[0] += 1\n    return f'{x}', np.cumsum(np.array(a))\n"
        namespace = self.policy.namespace()
        exec(compile_learner(sample), namespace)
        namespace["f"]([1, 2])
        np.random.uniform(); np.random.rand(); np.random.default_rng(0).random()
        # Methods that import numpy helpers lazily on first use: import them here, not in
        # a confined child (where every module load is a file read Landlock may refuse).
        array = np.array([[0.5, 0.25], [0.125, 0.125]])
        for method in ("sum", "mean", "std", "var", "min", "max", "any", "all", "prod",
                       "cumsum", "argmax", "argmin", "round", "clip", "copy"):
            getattr(array, method)()
        np.linalg.norm(array); np.unique(array); np.sort(array); repr(array); str(array)
        np.random.choice(3, p=[0.5, 0.25, 0.25]); np.isclose(array, array).all()
        np.searchsorted(np.cumsum([0.5, 0.5]), 0.5, side="right")
        json.dumps({"a": [1.5, None]})
        from sandbox import child, values  # noqa: F401  (import before fork, not after)

        values.tag((np.int64(1), [1.0], np.zeros(2)))
        gc.collect()
        gc.freeze()  # keep the warm heap out of the children's collections: fewer COW copies

    # -- control channel --------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        frame = protocol.encode(message)
        view = memoryview(frame)
        while view:
            view = view[os.write(CONTROL_OUT, view) :]

    def on_control(self) -> None:
        data = os.read(CONTROL_IN, READ_CHUNK)
        if not data:
            self.stopping = True
            return
        for message in self.control.feed(data):
            op = message.get("op")
            if op == "run":
                self.queue.append((int(message["job"]), message))
            elif op == "stop":
                self.stopping = True
        self.dispatch()

    def dispatch(self) -> None:
        while self.queue and len(self.attempts) < self.workers:
            job_id, job = self.queue.popleft()
            try:
                limits = Limits(**job["limits"])
            except (TypeError, ValueError) as exc:
                self.send({"job": job_id, "error": f"bad limits: {exc}"})
                continue
            key = self.source_key(job)
            self.jobs[job_id] = JobState(job, limits, time.monotonic(), key)
            self.assign(job_id, 0)

    # -- the compile cache --------------------------------------------------------------

    @staticmethod
    def source_key(job: dict[str, Any]) -> str:
        digest = hashlib.sha256(job["helpers"].encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + job["code"].encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def remember_compiled(self, state: JobState) -> None:
        """Cache a job's compiled code; only called for sources a child handled quickly."""
        if state.key in self.compiled:
            self.compiled.move_to_end(state.key)
            return
        try:
            helpers = state.job["helpers"]
            compiled = (
                compile_learner(helpers, HELPERS_FILENAME) if helpers else None,
                compile_learner(state.job["code"]),
            )
        except Exception:  # noqa: BLE001 - it compiled in the child; be safe regardless
            return
        self.compiled[state.key] = compiled
        while len(self.compiled) > CACHE_ENTRIES:
            self.compiled.popitem(last=False)

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

    def replenish(self) -> None:
        """Keep one confined spare per worker, with the limits most recently asked for."""
        if self.stopping or self.recent_limits is None:
            return
        while len(self.spares) > self.workers:
            self.discard(self.spares.popleft())
        while len(self.spares) < self.workers:
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

    def assign(self, job_id: int, first_case: int) -> None:
        """Hand a job (from ``first_case`` on) to a confined child."""
        state = self.jobs[job_id]
        self.recent_limits = state.limits
        spare = self.take_spare(state.limits)
        assignment = protocol.encode({"job": state.job, "first_case": first_case, "key": state.key})
        try:
            view = memoryview(assignment)
            while view:
                view = view[os.write(spare.job_fd, view) :]
        except OSError:
            pass  # the child died waiting: its exit is handled like any other
        finally:
            os.close(spare.job_fd)
        attempt = Attempt(job_id, spare, first_case, time.monotonic())
        self.attempts[spare.exit_fd] = attempt
        self.selector.register(spare.exit_fd, selectors.EVENT_READ, attempt)
        self.replenish()

    def _child_main(self, limits: Limits, job_fd: int, exit_fd: int, mailbox: Mailbox) -> None:
        from sandbox.child import receive_assignment, run_job

        status = 0
        try:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            self.selector = None  # type: ignore[assignment]  # the zygote's, not ours
            self.queue.clear()
            self.jobs.clear()
            self.attempts.clear()
            self.spares.clear()
            layers = self.confinement.apply(limits, keep_fds=[job_fd, exit_fd])
            mailbox.send({"t": "hello", "layers": dict(layers, policy=True)})
            assignment = receive_assignment(job_fd)
            os.close(job_fd)
            compiled = self.compiled.get(assignment["key"])
            self.compiled.clear()
            run_job(assignment["job"], mailbox, self.policy, assignment["first_case"], compiled)
        except BaseException:  # noqa: BLE001 - a child must never return into the zygote loop
            status = 70
        finally:
            os._exit(status)

    def on_exit_fd(self, attempt: Attempt) -> None:
        if self.attempts.get(attempt.spare.exit_fd) is not attempt:
            return  # finished earlier in this round of events
        try:
            if os.read(attempt.spare.exit_fd, READ_CHUNK):
                return  # a child has no business writing here; only end-of-file counts
        except OSError:
            pass
        self.finish(attempt)

    @staticmethod
    def kill(pid: int) -> int:
        """Kill a child's whole process group (and the child itself), reap it, return status."""
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _, status = os.waitpid(pid, 0)
        return status

    def finish(self, attempt: Attempt) -> None:
        """The child is done (or must be): kill its group, reap it, read its mailbox, record."""
        spare = attempt.spare
        self.selector.unregister(spare.exit_fd)
        del self.attempts[spare.exit_fd]
        status = self.kill(spare.pid)
        os.close(spare.exit_fd)
        state = self.jobs[attempt.job_id]
        total = len(state.job["cases"])
        running, _ = spare.mailbox.running()
        try:
            ready, ended, broken = self.digest(attempt, state, spare.mailbox.messages())
        except protocol.ProtocolError as exc:
            ready, ended, broken = False, False, f"malformed reply from the sandbox ({exc})"
        overflowed = spare.mailbox.overflowed()
        spare.mailbox.close()
        elapsed_ms = (time.monotonic() - attempt.assigned) * 1000

        if ended or state.setup is not None:
            if ended and state.setup is None and elapsed_ms < CACHE_ATTEMPT_MS:
                self.remember_compiled(state)
            self.complete(attempt.job_id)
            return
        reason, what = self.cause(attempt, status, overflowed, broken)
        next_case = total
        if ready and attempt.first_case <= running < total and running not in state.cases:
            state.cases[running] = {
                "outcome": reason,
                "error": {"type": "Sandbox", "message": what},
                "duration_ms": float(attempt.limits.time_ms) if reason == "timeout" else 0.0,
            }
            next_case = running + 1
        elif ready and running in state.cases:
            next_case = running + 1  # the case was reported; the child died between cases
        elif not ready:
            kind = {"timeout": "timeout", "memory": "memory"}.get(reason, "crashed")
            state.setup = {"kind": kind, "message": what, "line": None}
        if state.setup is None and next_case < total:
            self.assign(attempt.job_id, next_case)
        else:
            self.complete(attempt.job_id)

    @staticmethod
    def cause(attempt: Attempt, status: int, overflowed: bool, broken: str | None) -> tuple[str, str]:
        """Why a child stopped before finishing: (case outcome, learner-facing sentence)."""
        if attempt.timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU):
            return "timeout", f"ran longer than {attempt.limits.time_ms} ms"
        if overflowed:
            return "output", "your result (or printed output) is too large to report"
        if broken:
            return "crashed", broken
        return "crashed", describe_exit(status)

    def digest(
        self, attempt: Attempt, state: JobState, messages: list[dict[str, Any]]
    ) -> tuple[bool, bool, str | None]:
        """Apply a dead child's messages to its job: (reached its cases, ended, broken why)."""
        ready = ended = False
        expected = attempt.first_case
        for message in messages:
            kind = message.get("t")
            if kind == "hello":
                state.layers = protocol.parse_layers(message.get("layers"))
            elif kind == "setup" and not ready:
                setup = {k: message.get(k) for k in ("kind", "message", "line")}
                protocol.parse_setup(setup)
                state.setup = setup
                return ready, True, None
            elif kind == "ready":
                ready = True
            elif kind == "case" and ready and message.get("case") == expected:
                run = protocol.parse_case(message, attempt.limits.output_bytes)
                state.cases[expected] = _case_dict(run)
                expected += 1
            elif kind == "end" and ready and expected == len(state.job["cases"]):
                ended = True
            else:
                raise protocol.ProtocolError(f"unexpected message {kind!r}")
        return ready, ended, None

    def complete(self, job_id: int) -> None:
        state = self.jobs.pop(job_id)
        cases = [state.cases[i] for i in sorted(state.cases)]
        self.send(
            {
                "job": job_id,
                "result": {
                    "layers": state.layers,
                    "setup": state.setup,
                    "cases": cases,
                    "wall_ms": (time.monotonic() - state.started) * 1000,
                },
            }
        )
        self.dispatch()

    # -- deadlines ----------------------------------------------------------------------

    def deadline(self, attempt: Attempt, now: float) -> float:
        """When this child must be stopped, by the zygote's clock and the child's claims.

        The child says which case it is running and since when; the claim may only move the
        deadline within bounds the zygote sets itself (never before the assignment, never in
        the future, and never past one full budget per remaining case).
        """
        budget = attempt.limits.time_ms / 1000
        running, started = attempt.spare.mailbox.running()
        if running >= attempt.first_case:
            begin = min(max(started, attempt.assigned), now)
        else:
            begin = attempt.assigned
        cases = len(self.jobs[attempt.job_id].job["cases"]) - attempt.first_case
        return min(begin + budget, attempt.assigned + budget * (cases + 1))

    def check_deadlines(self) -> float | None:
        """Stop every child past its deadline; returns seconds until the next one."""
        now = time.monotonic()
        for attempt in list(self.attempts.values()):
            if now >= self.deadline(attempt, now):
                attempt.timed_out = True
                self.finish(attempt)  # may assign the remaining cases to a new child
        if not self.attempts:
            return None
        now = time.monotonic()
        soonest = min(self.deadline(attempt, now) for attempt in self.attempts.values())
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
        timeout = None
        while not self.stopping:
            for key, _ in self.selector.select(timeout):
                if key.data is None:
                    self.on_control()
                elif not self.stopping:
                    self.on_exit_fd(key.data)
            timeout = self.check_deadlines()
        for attempt in list(self.attempts.values()):
            self.kill(attempt.spare.pid)  # nothing outlives the zygote
        while self.spares:
            self.discard(self.spares.popleft())
        self.confinement.close()


def _case_dict(run: protocol.CaseRun) -> dict[str, Any]:
    error = run.error
    return {
        "outcome": run.outcome,
        "value": run.value,
        "error": None if error is None else {
            "type": error.type, "message": error.message, "line": error.line, "trace": error.trace,
        },
        "output": run.output,
        "output_truncated": run.output_truncated,
        "duration_ms": run.duration_ms,
        "draws": run.draws,
        "inputs_after": run.inputs_after,
    }


def main() -> None:
    workers = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    # The host's death closes our stdin, which stops the loop and kills every child. (No
    # parent-death signal here: it would follow the host *thread* that started us.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    zygote = Zygote(workers)
    zygote.warm()
    zygote.serve()


if __name__ == "__main__":
    main()
