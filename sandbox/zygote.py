"""The warm zygote: a clean interpreter that imports and warms everything once, then forks one
confined child per submission, watches its deadlines and reports its raw results.

It runs as its own process (started by ``sandbox.pool``), never holds the web app's memory and
never runs learner code itself. Requests arrive as frames on stdin, results leave on stdout.
"""

from __future__ import annotations

import gc
import os
import selectors
import signal
import sys
import time
import hashlib
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from sandbox import protocol
from sandbox.confine import Confinement, default_read_paths
from sandbox.limits import Limits
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner

# A source is compiled in the zygote only after a confined child compiled and loaded it this
# fast: a compiler-crashing or pathological source never reaches the zygote's compiler.
CACHE_SETUP_MS = 25.0
CACHE_ENTRIES = 128
CONTROL_IN = 0
CONTROL_OUT = 1
READ_CHUNK = 65536


@dataclass
class Attempt:
    """One child working on one job, from a given case on."""

    job_id: int
    job: dict[str, Any]
    limits: Limits
    pid: int
    fd: int
    first_case: int
    deadline: float
    reader: protocol.FrameReader = field(default_factory=protocol.FrameReader)
    greeted: float = 0.0  # when the confined child said hello: its compile starts then
    current: int | None = None
    ready: bool = False
    finished: bool = False
    timed_out: bool = False
    broken: str | None = None


@dataclass
class JobState:
    job: dict[str, Any]
    limits: Limits
    started: float
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
        self.attempts: dict[int, Attempt] = {}  # by pipe fd
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
            self.jobs[job_id] = JobState(job=job, limits=limits, started=time.monotonic())
            self.spawn(job_id, 0)

    # -- children ---------------------------------------------------------------------

    @staticmethod
    def source_key(job: dict[str, Any]) -> str:
        digest = hashlib.sha256(job["helpers"].encode("utf-8", "surrogatepass"))
        digest.update(b"\0" + job["code"].encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def remember_compiled(self, attempt: Attempt) -> None:
        """Cache this job's compiled code if its child compiled and loaded it quickly."""
        key = self.source_key(attempt.job)
        if key in self.compiled:
            self.compiled.move_to_end(key)
            return
        if (time.monotonic() - attempt.greeted) * 1000 > CACHE_SETUP_MS:
            return
        try:
            helpers = attempt.job["helpers"]
            compiled = (
                compile_learner(helpers, HELPERS_FILENAME) if helpers else None,
                compile_learner(attempt.job["code"]),
            )
        except Exception:  # noqa: BLE001 - it compiled in the child; be safe regardless
            return
        self.compiled[key] = compiled
        while len(self.compiled) > CACHE_ENTRIES:
            self.compiled.popitem(last=False)

    def spawn(self, job_id: int, first_case: int) -> None:
        state = self.jobs[job_id]
        compiled = self.compiled.get(self.source_key(state.job))
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            self._child_main(state.job, state.limits, write_fd, first_case, compiled)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        deadline = time.monotonic() + state.limits.time_ms / 1000
        attempt = Attempt(job_id, state.job, state.limits, pid, read_fd, first_case, deadline)
        self.attempts[read_fd] = attempt
        self.selector.register(read_fd, selectors.EVENT_READ, attempt)

    def _child_main(
        self,
        job: dict[str, Any],
        limits: Limits,
        fd: int,
        first_case: int,
        compiled: tuple[Any, Any] | None,
    ) -> None:
        from sandbox.child import Reply, run_job

        status = 0
        try:
            os.setsid()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            self.selector = None  # type: ignore[assignment]  # the zygote's, not ours
            self.queue.clear()
            self.jobs.clear()
            self.attempts.clear()
            layers = self.confinement.apply(limits, keep_fds=[fd])
            reply = Reply(fd, limits.reply_bytes)
            reply.send({"t": "hello", "layers": dict(layers, policy=True)})
            run_job(job, reply, self.policy, first_case, compiled)
        except BaseException:  # noqa: BLE001 - a child must never return into the zygote loop
            status = 70
        finally:
            os._exit(status)

    def on_child(self, attempt: Attempt) -> None:
        if self.attempts.get(attempt.fd) is not attempt:
            return  # finished earlier in this round of events
        try:
            data = os.read(attempt.fd, READ_CHUNK)
        except BlockingIOError:
            return
        if data:
            try:
                for message in attempt.reader.feed(data):
                    if self.attempts.get(attempt.fd) is not attempt:
                        break  # finished by an earlier message of this batch
                    self.on_message(attempt, message)
            except protocol.ProtocolError as exc:
                attempt.broken = f"malformed reply from the sandbox ({exc})"
                self.finish(attempt)
            return
        self.finish(attempt)

    def on_message(self, attempt: Attempt, message: dict[str, Any]) -> None:
        state = self.jobs[attempt.job_id]
        kind = message.get("t")
        limits = attempt.limits
        now = time.monotonic()
        if kind == "hello":
            state.layers = protocol.parse_layers(message.get("layers"))
            attempt.greeted = now
        elif kind == "setup":
            state.setup = {
                "kind": message.get("kind"),
                "message": message.get("message", ""),
                "line": message.get("line"),
            }
            protocol.parse_setup(state.setup)
            attempt.finished = True
        elif kind == "ready":
            attempt.ready = True
            self.remember_compiled(attempt)
        elif kind == "start":
            index = message.get("case")
            expected = attempt.first_case if attempt.current is None else attempt.current + 1
            if index != expected or not attempt.ready:
                raise protocol.ProtocolError("case started out of order")
            attempt.current = index
            attempt.deadline = now + limits.time_ms / 1000
        elif kind == "case":
            index = message.get("case")
            if index != attempt.current or index in state.cases:
                raise protocol.ProtocolError("case reported out of order")
            run = protocol.parse_case(message, limits.output_bytes)
            state.cases[index] = _case_dict(run)
        elif kind == "end":
            if len(state.cases) != len(state.job["cases"]):
                raise protocol.ProtocolError("child ended before all cases reported")
            attempt.finished = True
        elif kind == "overflow":
            attempt.broken = "your result (or printed output) is too large to report"
            self.finish(attempt, outcome="output")
        else:
            raise protocol.ProtocolError(f"unknown message type {kind!r}")

    def kill(self, attempt: Attempt) -> int:
        for target in (lambda: os.killpg(attempt.pid, signal.SIGKILL),
                       lambda: os.kill(attempt.pid, signal.SIGKILL)):
            try:
                target()
            except ProcessLookupError:
                pass
            except PermissionError:
                pass
        _, status = os.waitpid(attempt.pid, 0)
        return status

    def finish(self, attempt: Attempt, outcome: str | None = None) -> None:
        """The child is done (or must be): kill its group, reap it, record, maybe respawn."""
        if attempt.fd not in self.attempts:
            return
        self.selector.unregister(attempt.fd)
        del self.attempts[attempt.fd]
        status = self.kill(attempt)
        os.close(attempt.fd)
        state = self.jobs[attempt.job_id]
        total = len(state.job["cases"])

        if not attempt.finished and state.setup is None:
            if attempt.timed_out:
                reason, what = "timeout", f"ran longer than {attempt.limits.time_ms} ms"
            elif outcome == "output":
                reason, what = "output", attempt.broken or "output too large"
            else:
                reason, what = "crashed", attempt.broken or describe_exit(status)
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXCPU:
                reason = "timeout"
            if attempt.current is not None and attempt.current not in state.cases:
                state.cases[attempt.current] = {
                    "outcome": reason,
                    "error": {"type": "Sandbox", "message": what},
                    "duration_ms": attempt.limits.time_ms if reason == "timeout" else 0.0,
                }
                next_case = attempt.current + 1
            elif not attempt.ready:
                kind = {"timeout": "timeout", "output": "crashed"}.get(reason, "crashed")
                state.setup = {"kind": kind, "message": what, "line": None}
                next_case = total
            else:
                next_case = (attempt.current + 1) if attempt.current is not None else attempt.first_case
            if state.setup is None and next_case < total:
                self.spawn(attempt.job_id, next_case)
                return
        self.complete(attempt.job_id)

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

    def check_deadlines(self) -> None:
        now = time.monotonic()
        for attempt in list(self.attempts.values()):
            if now >= attempt.deadline:
                attempt.timed_out = True
                self.finish(attempt)

    def next_timeout(self) -> float | None:
        if not self.attempts:
            return None
        soonest = min(attempt.deadline for attempt in self.attempts.values())
        return max(0.0, soonest - time.monotonic())

    # -- main loop --------------------------------------------------------------------

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
        while not self.stopping:
            events = self.selector.select(self.next_timeout())
            for key, _ in events:
                if key.data is None:
                    self.on_control()
                elif not self.stopping:
                    self.on_child(key.data)
            self.check_deadlines()
        for attempt in list(self.attempts.values()):
            self.kill(attempt)  # nothing outlives the zygote
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
