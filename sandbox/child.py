"""Runs inside one forked child: confine, compile, call each case, report raw results.

Everything after ``confine`` is untrusted territory: the host believes nothing it did not
validate. This module's duty is to keep the learner's view small and the replies honest when
the learner is honest; the OS layers and the host's checks cover the rest.
"""

from __future__ import annotations

import builtins
import json
import linecache
import os
import select
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import numpy as np

from sandbox import values
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox
from sandbox.policy import (
    HELPERS_FILENAME,
    LEARNER_FILENAME,
    CompileFailure,
    Policy,
    compile_learner,
)
from sandbox.protocol import (
    DRIVER_FILENAME,
    READ_CHUNK,
    TRACE_FILENAME,
    FrameReader,
    Job,
    Outcome,
    RandomMode,
    case_record,
    encode,
    split_body,
)

LEARNER_FILES = (LEARNER_FILENAME, HELPERS_FILENAME)
# The legacy global state is set to this before each call, so a solution that forgets to seed
# fails every time rather than by the luck of case order.
FOREIGN_SEED = 20_240_917
# numpy's floating-point error handling as the zygote left it. Learner code can change it and
# leave it changed (an np.errstate held open in a suspended generator): the
# trusted code that runs after each call (tagging the result, snapshotting the arguments,
# wording an error) must never call a learner's error callback.
NUMPY_ERRORS = np.geterr()
# numpy 2 keeps all of it (modes, callback, buffer size) in one context variable: putting the
# zygote's value back is one call, where seterr and seterrcall were two per case. Another
# layout falls back to those two.
_NUMPY_ERROR_STATE: Any = getattr(
    sys.modules.get("numpy._core._ufunc_config"), "_extobj_contextvar", None
)
NUMPY_ERROR_STATE = None if _NUMPY_ERROR_STATE is None else _NUMPY_ERROR_STATE.get()


class Capture:
    """Captured stdout of one case (or of loading the module), capped.

    Past the cap the verdict is settled, so ``on_overflow`` reports it and ends this child at
    once (it never returns: learner code that swallows exceptions cannot keep printing); the
    zygote then runs the remaining cases in a fresh child.
    """

    def __init__(self, cap: int, on_overflow: Callable[[Capture], NoReturn]) -> None:
        self.cap = cap
        self.parts: list[str] = []
        self.size = 0
        self.on_overflow = on_overflow

    def write(self, text: str) -> None:
        room = self.cap - self.size
        if len(text) > room:
            self.parts.append(text[:room])
            self.size = self.cap
            self.on_overflow(self)
        self.parts.append(text)
        self.size += len(text)

    def text(self) -> str:
        return "".join(self.parts)


def learner_error(exc: BaseException) -> dict[str, Any]:
    """The exception as the learner should see it: type, message, their own lines only."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if frame.filename in LEARNER_FILES
    ]
    line = frames[-1].lineno if frames else None
    trace = "\n".join(
        f"  {frame.filename}, line {frame.lineno}, in {frame.name}"
        + (f"\n    {frame.line}" if frame.line else "")
        for frame in frames[-8:]
    )
    try:
        message = str(exc)
    except BaseException:  # a learner __str__ may raise anything, SystemExit included
        message = "<unprintable message>"
    return {"type": type(exc).__name__, "message": message[:2000], "line": line, "trace": trace}


def _source_lines(source: str, filename: str) -> None:
    # Traceback lines are read through linecache; seed it so the learner sees their own code
    # without any file existing (the child has no filesystem to read it from anyway).
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def receive_assignment(fd: int) -> tuple[dict[str, Any], Job]:
    """Block until the zygote sends this spare child its one job: (routing header, job)."""
    reader = FrameReader()
    while True:
        data = os.read(fd, READ_CHUNK)
        if not data:
            os._exit(0)  # the zygote discarded this spare
        payloads = reader.feed_raw(data)
        if payloads:
            header, body = split_body(payloads[0])
            return header, Job.from_document(json.loads(body))


def _abandon_setup(reply: Mailbox) -> Callable[[Capture], NoReturn]:
    def abandon(capture: Capture) -> NoReturn:
        reply.send({"t": "setup", "kind": "output", "message": "", "line": None})
        os._exit(0)

    return abandon


def _abandon_case(reply: Mailbox, index: int) -> Callable[[Capture], NoReturn]:
    def abandon(capture: Capture) -> NoReturn:
        reply.send(case_record(index, "output", output=capture.text(), output_truncated=True))
        os._exit(0)

    return abandon


class _JobArrived(Exception):
    """A job came while the spare rehearsed: the rest of the rehearsal would only delay it."""


class _Rehearsal:
    """Stands in for the mailbox while a spare rehearses: encodes every message, keeps none.

    With ``job_fd``, it looks at every message and case whether the real job has come, and
    stops the rehearsal if so (at a point between cases, where the real job sets everything
    again): under load, a job waited for the whole rehearsal to end."""

    def __init__(self, job_fd: int | None = None) -> None:
        self.job_fd = job_fd

    def send(self, message: dict[str, Any]) -> None:
        encode(message)
        self.stop_if_job_arrived()

    def start_case(self, index: int) -> None:
        self.stop_if_job_arrived()

    def stop_if_job_arrived(self) -> None:
        if self.job_fd is not None and select.select([self.job_fd], [], [], 0)[0]:
            raise _JobArrived


# Two rehearsals, for the two shapes of the exercises' jobs. The plain one: list arguments and
# numpy's legacy global state. The one with helpers: list, ndarray and value arguments, a scripted
# and a seeded generator, helpers compiled by the policy. Both start from the job's JSON document,
# as a real job does. Only our own code, on inputs of our own. (A trusted driver calling the step,
# as the distribution check does, made the rehearsal longer and saved a one-trial check job
# nothing measurable: left out.)
REHEARSAL_SOURCE = (
    "import numpy as np\n"
    "def f(a, b):\n"
    "    out = []\n"
    "    for i in range(len(a)):\n"
    "        r = np.random.uniform()\n"
    "        if r < min(1.0, b[i] / a[i]):\n"
    "            out.append(i)\n"
    "        else:\n"
    "            break\n"
    "    print(f'{out}')\n"
    "    return out, len(out)\n"
)
REHEARSAL_JOB = Job(
    code=REHEARSAL_SOURCE,
    entry_point="f",
    cases=({"a": [0.5, 0.5], "b": [0.25, 0.5]}, {"a": [0.125], "b": [0.5]}),
    parameters={"a": "list", "b": "ndarray"},
    limits=Limits(output_bytes=1024),
    random_mode=RandomMode.global_state,
)
REHEARSAL_HELPERS = (
    "import numpy as np\n"
    "def pick(weights, rng):\n"
    "    running = np.cumsum(np.asarray(weights, dtype=float))\n"
    "    token = int(np.searchsorted(running, rng.random(), side='right'))\n"
    "    return min(token, int(np.flatnonzero(weights > 0)[-1]))\n"
)
REHEARSAL_HELPERS_SOURCE = (
    "import numpy as np\n"
    "def f(a, b, p, n, rng):\n"
    "    np.random.seed(n)\n"
    "    out = []\n"
    "    for i in range(len(a)):\n"
    "        if np.random.uniform() < 2 and rng.random() < min(1.0, b[i] / a[i]):\n"
    "            out.append(i)\n"
    "        else:\n"
    "            break\n"
    "    rest = np.maximum(p[0] - p[-1], 0.0)\n"
    "    out.append(pick(rest / rest.sum(), rng))\n"
    "    print(f'{out}')\n"
    "    return out, len(out), p[0, 1]\n"
)
REHEARSAL_P = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25]]
REHEARSAL_HELPERS_JOB = Job(
    code=REHEARSAL_HELPERS_SOURCE,
    entry_point="f",
    cases=(
        {"a": [0.5, 0.5], "b": [0.25, 0.5], "p": REHEARSAL_P, "n": 1, "rng": {"seed": 2}},
        {"a": [0.125], "b": [0.5], "p": REHEARSAL_P, "n": 3, "rng": {"scripted": [0.5, 0.75]}},
    ),
    parameters={"a": "list", "b": "ndarray", "p": "ndarray", "n": "value", "rng": "rng"},
    limits=Limits(output_bytes=1024),
    random_mode=RandomMode.generator,
    rng_argument="rng",
    helpers=REHEARSAL_HELPERS,
)
# As a job arrives: its document's JSON, read by the real job's reader.
REHEARSAL_BODIES = {False: REHEARSAL_JOB.body(), True: REHEARSAL_HELPERS_JOB.body()}
# The helpers, compiled once by the zygote's warm-up (its first rehearsal), as the zygote
# compiles an exercise's: a spare then compiles only the job's own source.
_REHEARSAL_COMPILED: dict[str, Any] = {}


def rehearse(policy: Policy, job_fd: int | None = None, with_helpers: bool = False) -> None:
    """Run a small job through the real harness before the real one arrives.

    A spare child shares its memory with the zygote; the first write to each page costs a
    copy. Rehearsing while idle pays those copies ahead of time, off the grading path. The
    rehearsal compiles its source too, as a real job with a new source does (it lowered the p50
    of unique sources at light load: docs/performance.md). It runs only our own
    code, and everything it sets the real job sets again. With ``job_fd`` (a spare's), it
    stops as soon as the real job is there to be read.

    ``with_helpers`` rehearses the job with helpers, arrays and generators (the zygote asks for
    it when its last job came with an exercise's helpers): a resample job's child then costs
    less, but the rehearsal costs more than that, which only idle cores can spare (on verify's
    jobs it saved nothing and cost throughput at full load).
    """
    compiled = _REHEARSAL_COMPILED
    if not compiled:
        compiled[HELPERS_FILENAME] = compile_learner(REHEARSAL_HELPERS, HELPERS_FILENAME)
    # A job whose random mode is not the legacy global state never seeds it, and a learner's
    # step may draw from it all the same (a mistake a report shows): a spare hands its job the
    # state the zygote left, whichever rehearsal it ran and wherever that stopped.
    legacy = np.random.get_state() if job_fd is not None else None
    mailbox = _Rehearsal(job_fd)
    try:
        mailbox.stop_if_job_arrived()
        job = Job.from_document(json.loads(REHEARSAL_BODIES[with_helpers]))
        run_job(job, mailbox, policy, 0, compiled[HELPERS_FILENAME])  # type: ignore[arg-type]
    except _JobArrived:
        pass
    finally:
        if legacy is not None:
            np.random.set_state(legacy)


def run_job(
    job: Job,
    reply: Mailbox,
    policy: Policy,
    first_case: int,
    helpers_code: Any = None,
    trusted_code: Mapping[str, Any] | None = None,
) -> None:
    """Compile the learner's code, then run cases first_case.. in order, reporting each.

    ``helpers_code`` is the exercise's helpers as the zygote compiled them (trusted, the same
    for every learner); None compiles them here. ``trusted_code`` holds the job's driver and
    trace as the zygote compiled them, by file name; those missing are compiled here.
    """
    compiled = trusted_code or {}
    parameters = job.parameters
    output_cap = job.limits.output_bytes
    sys.setrecursionlimit(400)

    globals_: dict[str, Any] = _trusted_namespace() if job.trusted else policy.namespace()
    try:
        if job.helpers:
            _source_lines(job.helpers, HELPERS_FILENAME)
            if job.trusted or helpers_code is None:  # the zygote's copy is the policy's
                helpers_code = _compiled(job.helpers, HELPERS_FILENAME, job.trusted)
            exec(helpers_code, globals_)
        trace = _trusted_function(job.trace, TRACE_FILENAME, "trace", compiled.get(TRACE_FILENAME))
        drive = _trusted_function(
            job.driver, DRIVER_FILENAME, "drive", compiled.get(DRIVER_FILENAME)
        )
        _source_lines(job.code, LEARNER_FILENAME)
        code = _compiled(job.code, LEARNER_FILENAME, job.trusted)
    except CompileFailure as failure:
        kind = "refused" if failure.refused else "compile"
        reply.send({"t": "setup", "kind": kind, "message": failure.message, "line": failure.line})
        return
    except SyntaxError as exc:  # a trusted reference that does not compile: the judge's bug
        reply.send({"t": "setup", "kind": "compile", "message": str(exc), "line": exc.lineno})
        return

    capture = Capture(output_cap, on_overflow=_abandon_setup(reply))
    policy.print_hook = capture.write
    try:
        exec(code, globals_)
    except BaseException as exc:  # SystemExit and friends included: nothing escapes
        kind = "memory" if isinstance(exc, MemoryError) else "module"
        raised = learner_error(exc)
        message = f"{raised['type']}: {raised['message']}"
        reply.send({"t": "setup", "kind": kind, "message": message, "line": raised["line"]})
        return
    entry = globals_.get(job.entry_point)
    if not callable(entry):
        found = None if entry is None else type(entry).__name__
        reply.send(
            {"t": "setup", "kind": "missing_entry", "message": "", "line": None, "found": found}
        )
        return
    reply.send({"t": "ready"})

    for index in range(first_case, len(job.cases)):
        inputs = job.cases[index]
        capture = Capture(output_cap, on_overflow=_abandon_case(reply, index))
        # A driver calls the step thousands of times: a debugging print in it is not output
        # worth a verdict, so it is dropped rather than counted against the cap.
        policy.print_hook = _dropped if drive is not None else capture.write
        reply.start_case(index)  # building large arguments is the case's time, too
        try:
            arguments = {
                name: values.build_argument(kind, inputs[name]) for name, kind in parameters.items()
            }
        except Exception as exc:  # e.g. an array of 65 dimensions: numpy refuses to build it
            reply.send(_unbuilt_case(index, exc))
            continue
        built = values.pristine(parameters, arguments)
        if job.random_mode is RandomMode.global_state:
            np.random.seed(FOREIGN_SEED + index)
        outcome = Outcome.returned
        value: dict[str, Any] | None = None
        error: dict[str, Any] | None = None
        started = time.perf_counter()
        try:
            try:
                if drive is not None:
                    result = drive(entry, values.CountingGenerator, *arguments.values())
                else:
                    result = entry(*arguments.values())
            finally:  # before any trusted code runs, however the call ended
                _restore_numpy_errors()
            value = values.tag(result)
        except values.RandomStreamExhausted as exc:
            # Data, not a sentence: the trusted side words it from the draw count.
            outcome, error = Outcome.exhausted, {"type": type(exc).__name__, "message": ""}
        except MemoryError as exc:
            outcome, error = Outcome.memory, learner_error(exc)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt, GeneratorExit, ...
            outcome, error = Outcome.raised, learner_error(exc)
        duration_ms = (time.perf_counter() - started) * 1000
        draws = drawn = None
        if job.random_mode is RandomMode.generator and job.rng_argument is not None:
            draws = arguments[job.rng_argument].draws
            drawn = arguments[job.rng_argument].drawn_values
        inputs_after = values.snapshot_arguments(dict(parameters), arguments, inputs, built)
        reply.send(
            case_record(
                index,
                outcome.value,
                value=value,
                error=error,
                output=capture.text(),
                output_truncated=False,  # a cut output ended the case (see Capture)
                duration_ms=duration_ms,
                draws=draws,
                inputs_after=inputs_after,
                drawn=drawn,
                trace=_traced(trace, parameters, inputs) if outcome is Outcome.returned else None,
            )
        )
    reply.send({"t": "end"})


def _dropped(text: str) -> None:
    pass


def _restore_numpy_errors() -> None:
    if _NUMPY_ERROR_STATE is not None:
        _NUMPY_ERROR_STATE.set(NUMPY_ERROR_STATE)
        return
    np.seterr(**NUMPY_ERRORS)
    np.seterrcall(None)


def _unbuilt_case(index: int, exc: Exception) -> dict[str, Any]:
    """The report of a case whose input could not be made into arguments (nothing was called)."""
    try:
        message = str(exc)[:300]
    except Exception:  # only our own code ran, but the message must never cost the reply
        message = ""
    error = {"type": type(exc).__name__, "message": message, "line": None, "trace": ""}
    return case_record(index, Outcome.bad_input.value, error=error)


def _compiled(source: str, filename: str, trusted: bool) -> Any:
    """``source`` compiled as plain Python (the judge's own code) or by the learner policy."""
    return compile(source, filename, "exec") if trusted else compile_learner(source, filename)


def _trusted_namespace(name: str = "solution") -> dict[str, Any]:
    """A module namespace for the judge's own code (the reference, a trace, a driver): plain
    Python; a print in it is dropped, since the child's stdout is not an output channel."""
    return {"__builtins__": builtins, "__name__": name, "print": _dropped}


def _trusted_function(source: str, filename: str, name: str, code: Any = None) -> Any:
    """Run an exercise's trusted trace or driver source in a namespace of its own (``code``:
    compiled by the zygote from this very source, else compiled here).

    Its own namespace, so nothing the learner's module rebinds (``np``, ``sample``) reaches it.
    Plain Python, not the learner policy: it is the judge's code, and a driver calls the step
    thousands of times (guarded, its own bookkeeping cost many times the step). It touches learner
    results only after checking their exact types.
    """
    if not source:
        return None
    namespace = _trusted_namespace(filename)
    _source_lines(source, filename)
    exec(compile(source, filename, "exec") if code is None else code, namespace)
    return namespace[name]


def _traced(trace: Any, parameters: Mapping[str, str], inputs: Any) -> Any:
    """What the trusted trace function reports for these inputs, on fresh arguments."""
    if trace is None:
        return None
    arguments = [values.build_argument(kind, inputs[name]) for name, kind in parameters.items()]
    try:
        return values.json_data(trace(*arguments))
    except Exception as exc:  # a trace bug must cost the explanation, never the grade
        return {"trace_error": f"{type(exc).__name__}: {exc}"[:300]}
