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
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import numpy as np

from sandbox import values
from sandbox.framing import READ_CHUNK, FrameReader, split_body
from sandbox.job import DRIVER_FILENAME, TRACE_FILENAME, Job, RandomMode
from sandbox.mailbox import Mailbox
from sandbox.policy import (
    HELPERS_FILENAME,
    LEARNER_FILENAME,
    CompileFailure,
    Policy,
    compile_learner,
)
from sandbox.protocol import END, READY, Assignment, CaseReport, parse_assignment
from sandbox.results import CaseRun, ErrorInfo, Outcome, SetupFailure, SetupKind

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


def learner_error(exc: BaseException) -> ErrorInfo:
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
    return ErrorInfo(type(exc).__name__, message[:2000], line, trace)


def _source_lines(source: str, filename: str) -> None:
    # Traceback lines are read through linecache; seed it so the learner sees their own code
    # without any file existing (the child has no filesystem to read it from anyway).
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)


def receive_assignment(fd: int) -> tuple[Assignment, Job]:
    """Block until the zygote sends this spare child its one job: (where to start, job)."""
    reader = FrameReader()
    while True:
        data = os.read(fd, READ_CHUNK)
        if not data:
            os._exit(0)  # the zygote discarded this spare
        payloads = reader.feed_raw(data)
        if payloads:
            header, body = split_body(payloads[0])
            return parse_assignment(header), Job.from_document(json.loads(body))


def _abandon_setup(reply: Mailbox) -> Callable[[Capture], NoReturn]:
    def abandon(capture: Capture) -> NoReturn:
        reply.send(SetupFailure(SetupKind.output, ""))
        os._exit(0)

    return abandon


def _abandon_case(reply: Mailbox, index: int) -> Callable[[Capture], NoReturn]:
    def abandon(capture: Capture) -> NoReturn:
        run = CaseRun(Outcome.output, output=capture.text(), output_truncated=True)
        reply.send(CaseReport(index, run))
        os._exit(0)

    return abandon


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
        kind = SetupKind.refused if failure.refused else SetupKind.compile
        reply.send(SetupFailure(kind, failure.message, failure.line))
        return
    except SyntaxError as exc:  # a trusted reference that does not compile: the judge's bug
        reply.send(SetupFailure(SetupKind.compile, str(exc), exc.lineno))
        return

    capture = Capture(output_cap, on_overflow=_abandon_setup(reply))
    policy.print_hook = capture.write
    try:
        exec(code, globals_)
    except BaseException as exc:  # SystemExit and friends included: nothing escapes
        kind = SetupKind.memory if isinstance(exc, MemoryError) else SetupKind.module
        raised = learner_error(exc)
        reply.send(SetupFailure(kind, f"{raised.type}: {raised.message}", raised.line))
        return
    entry = globals_.get(job.entry_point)
    if not callable(entry):
        found = None if entry is None else type(entry).__name__
        reply.send(SetupFailure(SetupKind.missing_entry, "", found=found))
        return
    reply.send(READY)

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
        error: ErrorInfo | None = None
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
            outcome, error = Outcome.exhausted, ErrorInfo(type(exc).__name__, "")
        except MemoryError as exc:
            outcome, error = Outcome.memory, learner_error(exc)
        except BaseException as exc:  # SystemExit, KeyboardInterrupt, GeneratorExit, ...
            outcome, error = Outcome.raised, learner_error(exc)
        duration_ms = (time.perf_counter() - started) * 1000
        draws = drawn = None
        if job.random_mode is RandomMode.generator and job.rng_argument is not None:
            draws = arguments[job.rng_argument].draws
            drawn = tuple(arguments[job.rng_argument].drawn_values)
        inputs_after = values.snapshot_arguments(dict(parameters), arguments, inputs, built)
        run = CaseRun(
            outcome,
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
        reply.send(CaseReport(index, run))
    reply.send(END)


def _dropped(text: str) -> None:
    pass


def _restore_numpy_errors() -> None:
    if _NUMPY_ERROR_STATE is not None:
        _NUMPY_ERROR_STATE.set(NUMPY_ERROR_STATE)
        return
    np.seterr(**NUMPY_ERRORS)
    np.seterrcall(None)


def _unbuilt_case(index: int, exc: Exception) -> CaseReport:
    """The report of a case whose input could not be made into arguments (nothing was called)."""
    try:
        message = str(exc)[:300]
    except Exception:  # only our own code ran, but the message must never cost the reply
        message = ""
    error = ErrorInfo(type(exc).__name__, message)
    return CaseReport(index, CaseRun(Outcome.bad_input, error=error))


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
