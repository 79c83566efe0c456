"""What one submission produced in the sandbox: raw outputs, nothing judged yet.

These values reach the trusted side only through ``sandbox.protocol``'s validators (a case's
record, a set-up failure) or from the zygote's own account of a child's end; the host words
and judges them (``app/grading``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """How one case ended, as the child (or the zygote, for a killed child) reports it."""

    returned = "returned"  # the function returned a value (maybe wrong: the trusted side judges)
    raised = "raised"  # the function raised an exception
    exhausted = "exhausted"  # it drew more numbers than the case's scripted generator holds
    timeout = "timeout"  # the case ran past its deadline and the child was killed
    memory = "memory"  # the case ran out of memory
    output = "output"  # the case printed more than the output cap
    crashed = "crashed"  # the child died during the case (signal, early exit, broken reply)
    # The case's input could not be made into arguments (numpy refused it): the input's fault,
    # never the function's, which was not called.
    bad_input = "bad_input"
    not_run = "not_run"  # an earlier case used up the submission's time or reply budget


class SetupKind(StrEnum):
    """Why a submission never reached its cases."""

    compile = "compile"  # a syntax error
    refused = "refused"  # the policy refused a construct or an import
    module = "module"  # the module's top level raised
    missing_entry = "missing_entry"  # no callable with the entry point's name
    timeout = "timeout"  # loading ran past the deadline
    crashed = "crashed"  # the child died while loading
    memory = "memory"  # loading ran out of memory
    output = "output"  # loading printed more than the output cap


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """An exception in learner code, reduced to what the learner needs to see."""

    type: str
    message: str
    line: int | None = None
    trace: str = ""


@dataclass(frozen=True, slots=True)
class CaseRun:
    outcome: Outcome
    value: Any = None  # a tagged value (see sandbox.values), present when outcome == returned
    error: ErrorInfo | None = None
    output: str = ""
    output_truncated: bool = False
    duration_ms: float = 0.0
    draws: int | None = None
    inputs_after: dict[str, Any] | None = None
    drawn: tuple[float | None, ...] | None = None  # the first values the generator handed out
    trace: Any = None  # plain JSON from the job's trusted trace function, if it has one
    # How the child ended when it died on this case (``crashed``): its wait status, as the
    # zygote saw it. Data, not a sentence: the host words it (app/grading/compare.py).
    exit_status: int | None = None


@dataclass(frozen=True, slots=True)
class SetupFailure:
    """The submission never reached its cases: compile error, policy refusal, module error.

    ``message`` is the compiler's, the policy's or the raised exception's own text (empty when
    the judge has nothing to quote); the host words the rest from the data beside it."""

    kind: SetupKind
    message: str
    line: int | None = None
    found: str | None = None  # missing_entry: the type of what has the entry point's name
    exit_status: int | None = None  # crashed: the child's wait status


@dataclass
class RunResult:
    """Everything one submission produced in the sandbox: raw outputs, nothing judged yet."""

    layers: dict[str, bool] = field(default_factory=dict)
    setup: SetupFailure | None = None
    cases: list[CaseRun] = field(default_factory=list)
    wall_ms: float = 0.0
    cpu_ms: float = 0.0  # the learner's CPU time, all cases together (the budget's measure)
    demoted: bool = False  # it ran long and finished in the slow lane
