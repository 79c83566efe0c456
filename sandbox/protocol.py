"""The wire contract: every message between the host's pool, the zygote and a confined child.

Each message is a frozen value with one encoder and one validator, framed by
``sandbox.framing``:

- host -> zygote, control frames (a header line, then an opaque body): ``RunOrder`` (body: the
  job's document, ``sandbox.job``), ``CompileOrder`` (body: a source), ``StopOrder``;
- zygote -> child: ``Assignment`` (body: the job's document, passed on unread);
- child -> host, through its mailbox, which the zygote relays unread: ``Hello``,
  ``SetupFailure``, ``Ready``, ``CaseReport``, ``End``;
- zygote -> host: ``ZygoteReady``, ``AttemptReport`` (body: the child's mailbox), ``Demoted``,
  ``JobRefused``.

The host and the zygote are ours; a confined child is not, and can write anything to its
mailbox, so what it sends is checked here (shape, types, sizes) before the trusted side
believes a word of it. Every validator raises ``ProtocolError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from sandbox import fields
from sandbox.framing import ProtocolError, encode, encode_with_body
from sandbox.job import DRIVER_FILENAME, TRACE_FILENAME
from sandbox.limits import Limits
from sandbox.results import CaseRun, ErrorInfo, Outcome, SetupFailure, SetupKind


class BadMessage(ProtocolError):
    """A message about one job (``job``) that does not follow the protocol."""

    def __init__(self, message: str, job: int | None) -> None:
        super().__init__(message)
        self.job = job


# ---- host -> zygote: the control orders --------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunOrder:
    """Run (the rest of) a job: its cases from ``first_case`` on, with what its earlier
    children spent of its one budget, in the lane it was in."""

    job: int
    first_case: int
    cases: int
    limits: Limits
    helpers_key: str | None = None  # the exercise's helpers, compiled once (CompileOrder)
    trusted_keys: Mapping[str, str] = field(default_factory=dict)  # file name -> key
    spent_cpu_ms: float = 0.0
    spent_wall_ms: float = 0.0
    slow: bool = False  # demoted before (its child crashed): straight back to the slow lane
    # A driver's job calls the step hundreds of times: the zygote forks no spare while it runs
    # in a fast slot (sandbox/attempts.py, spare_wanted).
    long: bool = False
    # Its draws come from a generator argument: the zygote's next spares rehearse that path.
    generator: bool = False


@dataclass(frozen=True, slots=True)
class CompileOrder:
    """Compile an exercise's own code once, for every later child: its helpers by the learner
    policy (``filename`` None), or its driver or trace as plain Python."""

    key: str
    filename: str | None = None


@dataclass(frozen=True, slots=True)
class StopOrder:
    """Finish what runs, then exit."""


Order = RunOrder | CompileOrder | StopOrder
STOP = StopOrder()


def encode_order(order: Order, body: bytes = b"") -> bytes:
    """The one encoder of a control frame."""
    if isinstance(order, RunOrder):
        header: dict[str, Any] = {
            "op": "run",
            "job": order.job,
            "first_case": order.first_case,
            "cases": order.cases,
            "limits": asdict(order.limits),
            "helpers_key": order.helpers_key,
            "trusted_keys": dict(order.trusted_keys),
            "spent_cpu_ms": order.spent_cpu_ms,
            "spent_wall_ms": order.spent_wall_ms,
            "lane": "slow" if order.slow else "fast",
            "long": order.long,
            "generator": order.generator,
        }
    elif isinstance(order, CompileOrder):
        op = "helpers" if order.filename is None else "trusted"
        header = {"op": op, "key": order.key, "filename": order.filename}
    else:
        header = {"op": "stop"}
    return encode_with_body(header, body)


def parse_order(header: Mapping[str, Any]) -> Order | None:
    """The order a control header gives; None for one the zygote does not know (ignored)."""
    op = header.get("op")
    if op == "run":
        job = header.get("job")
        try:
            return RunOrder(
                job=fields.integer(job, "job"),
                first_case=fields.integer(header.get("first_case"), "first_case"),
                cases=fields.integer(header.get("cases"), "cases"),
                limits=fields.limits(header.get("limits")),
                helpers_key=fields.optional_key(header.get("helpers_key")),
                trusted_keys=fields.trusted_keys(header.get("trusted_keys")),
                spent_cpu_ms=fields.number(header.get("spent_cpu_ms", 0.0), "spent_cpu_ms"),
                spent_wall_ms=fields.number(header.get("spent_wall_ms", 0.0), "spent_wall_ms"),
                slow=header.get("lane") == "slow",
                long=header.get("long") is True,
                generator=header.get("generator") is True,
            )
        except ProtocolError as exc:
            raise BadMessage(f"bad job: {exc}", job if type(job) is int else None) from None
    if op in ("helpers", "trusted"):
        key, filename = header.get("key"), header.get("filename")
        if not isinstance(key, str):
            raise ProtocolError("a compile order needs a key")
        if op == "helpers":
            return CompileOrder(key)
        if filename not in (DRIVER_FILENAME, TRACE_FILENAME):
            return None  # nothing else is compiled as trusted code
        return CompileOrder(key, str(filename))
    if op == "stop":
        return STOP
    return None


# ---- zygote -> child: its one job ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Assignment:
    """What a spare child is told beside its job: where to start, and which of the zygote's
    compiled helpers and trusted sources are the job's."""

    first_case: int
    helpers_key: str | None = None
    trusted_keys: Mapping[str, str] = field(default_factory=dict)


def encode_assignment(assignment: Assignment, body: bytes) -> bytes:
    header = {
        "first_case": assignment.first_case,
        "helpers_key": assignment.helpers_key,
        "trusted_keys": dict(assignment.trusted_keys),
    }
    return encode_with_body(header, body)


def parse_assignment(header: Mapping[str, Any]) -> Assignment:
    return Assignment(
        first_case=fields.integer(header.get("first_case"), "first_case"),
        helpers_key=fields.optional_key(header.get("helpers_key")),
        trusted_keys=fields.trusted_keys(header.get("trusted_keys")),
    )


# ---- zygote -> host: what became of the orders ---------------------------------------------


@dataclass(frozen=True, slots=True)
class ZygoteReady:
    """The zygote warmed up: its pid and the confinement layers it can apply (and why not)."""

    pid: int
    layers: Mapping[str, bool]
    reasons: Mapping[str, str] = field(default_factory=dict)
    landlock_abi: int = 0


@dataclass(frozen=True, slots=True)
class AttemptReport:
    """One child the zygote stopped or saw exit; the frame's body is the child's mailbox."""

    job: int
    first_case: int
    status: int  # the child's wait status (0: it finished and said so)
    running: int  # the case the child claimed to be running (-1: none)
    timed_out: bool  # the zygote stopped it for the job's budget
    overflowed: bool  # its reply outgrew the mailbox
    elapsed_ms: float
    cpu_ms: float


@dataclass(frozen=True, slots=True)
class Demoted:
    """A job ran long: it now runs in the slow lane and holds no fast slot."""

    job: int


@dataclass(frozen=True, slots=True)
class JobRefused:
    """A run order the zygote could not follow."""

    job: int | None
    error: str


Event = ZygoteReady | AttemptReport | Demoted | JobRefused


def encode_event(event: Event, body: bytes = b"") -> bytes:
    """The one encoder of what the zygote tells the host."""
    if isinstance(event, AttemptReport):
        # Field by field: asdict() deep-copies each one, work the zygote pays on every job.
        header: dict[str, Any] = {
            "event": "ended",
            "job": event.job,
            "first_case": event.first_case,
            "status": event.status,
            "running": event.running,
            "timed_out": event.timed_out,
            "overflowed": event.overflowed,
            "elapsed_ms": event.elapsed_ms,
            "cpu_ms": event.cpu_ms,
        }
    elif isinstance(event, Demoted):
        header = {"event": "demoted", "job": event.job}
    elif isinstance(event, JobRefused):
        header = {"event": "refused", "job": event.job, "error": event.error}
    else:
        header = {
            "event": "ready",
            "pid": event.pid,
            "layers": dict(event.layers),
            "reasons": dict(event.reasons),
            "landlock_abi": event.landlock_abi,
        }
    return encode_with_body(header, body)


def parse_event(header: Mapping[str, Any]) -> Event:
    """What the zygote says; ``BadMessage`` names the job of a report that does not parse."""
    kind = header.get("event")
    job = header.get("job")
    try:
        if kind == "ended":
            return AttemptReport(
                job=fields.integer(job, "job"),
                first_case=fields.integer(header.get("first_case"), "first_case"),
                status=fields.integer(header.get("status"), "status"),
                running=fields.integer(header.get("running"), "running"),
                timed_out=fields.boolean(header.get("timed_out"), "timed_out"),
                overflowed=fields.boolean(header.get("overflowed"), "overflowed"),
                elapsed_ms=fields.number(header.get("elapsed_ms"), "elapsed_ms"),
                cpu_ms=fields.number(header.get("cpu_ms"), "cpu_ms"),
            )
        if kind == "demoted":
            return Demoted(fields.integer(job, "job"))
        if kind == "refused":
            error = header.get("error")
            return JobRefused(job if type(job) is int else None, str(error))
        if kind == "ready":
            reasons = header.get("reasons")
            abi = header.get("landlock_abi")
            return ZygoteReady(
                pid=fields.integer(header.get("pid"), "pid"),
                layers=parse_layers(header.get("layers")),
                reasons={
                    str(k): str(v)
                    for k, v in (reasons.items() if isinstance(reasons, dict) else ())
                },
                landlock_abi=abi if type(abi) is int else 0,
            )
    except ProtocolError as exc:
        raise BadMessage(f"bad {kind} report: {exc}", job if type(job) is int else None) from None
    raise BadMessage(f"unknown event {kind!r}", job if type(job) is int else None)


# ---- child -> host: its replies, in its mailbox ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello:
    """The child is confined: the layers in force."""

    layers: Mapping[str, bool]


@dataclass(frozen=True, slots=True)
class Ready:
    """The learner's module loaded and its entry point is callable: the cases follow."""


@dataclass(frozen=True, slots=True)
class CaseReport:
    """One case's raw result (``run.exit_status`` is never the child's to say)."""

    index: int
    run: CaseRun


@dataclass(frozen=True, slots=True)
class End:
    """Every case of the job is reported."""


Reply = Hello | SetupFailure | Ready | CaseReport | End
READY = Ready()
END = End()


def reply_document(message: Reply) -> dict[str, Any]:
    """The one encoder of a child's reply, as the JSON object its frame holds."""
    if isinstance(message, CaseReport):  # first: the one sent per case
        run, error = message.run, message.run.error
        return {
            "t": "case",
            "case": message.index,
            "outcome": run.outcome.value,
            "value": run.value,
            "error": None
            if error is None
            else {
                "type": error.type,
                "message": error.message,
                "line": error.line,
                "trace": error.trace,
            },
            "output": run.output,
            "output_truncated": run.output_truncated,
            "duration_ms": run.duration_ms,
            "draws": run.draws,
            "inputs_after": run.inputs_after,
            "drawn": None if run.drawn is None else list(run.drawn),
            "trace": run.trace,
        }
    if isinstance(message, Hello):
        return {"t": "hello", "layers": dict(message.layers)}
    if isinstance(message, SetupFailure):
        return {
            "t": "setup",
            "kind": message.kind.value,
            "message": message.message,
            "line": message.line,
            "found": message.found,
        }
    return {"t": "ready" if isinstance(message, Ready) else "end"}


def encode_reply(message: Reply) -> bytes:
    return encode(reply_document(message))


def parse_reply(raw: Mapping[str, Any], output_cap: int) -> Reply:
    """The one validator of a child's reply (a frame's JSON object)."""
    kind = raw.get("t")
    if kind == "case":
        return CaseReport(fields.integer(raw.get("case"), "case"), _case_run(raw, output_cap))
    if kind == "hello":
        return Hello(parse_layers(raw.get("layers")))
    if kind == "setup":
        return _setup(raw)
    if kind == "ready":
        return READY
    if kind == "end":
        return END
    raise ProtocolError(f"unexpected message {kind!r}")


def _case_run(raw: Mapping[str, Any], output_cap: int) -> CaseRun:
    try:
        outcome = Outcome(str(raw.get("outcome")))
    except ValueError:
        raise ProtocolError(f"unknown case outcome {raw.get('outcome')!r}") from None
    # A NaN would pass a comparison with 0 and reach the report, which JSON cannot carry.
    duration = fields.number(raw.get("duration_ms", 0.0), "duration_ms")
    if duration < 0:
        raise ProtocolError("duration_ms must be a non-negative number")
    inputs_after = raw.get("inputs_after")
    if inputs_after is not None and not isinstance(inputs_after, dict):
        raise ProtocolError("inputs_after must be an object")
    return CaseRun(
        outcome=outcome,
        value=raw.get("value"),
        error=_error(raw.get("error")),
        output=fields.text(raw.get("output", ""), output_cap, "output"),
        output_truncated=fields.boolean(raw.get("output_truncated", False), "output_truncated"),
        duration_ms=duration,
        draws=fields.optional_integer(raw.get("draws"), "draws"),
        inputs_after=inputs_after,
        drawn=fields.drawn(raw.get("drawn")),
        trace=raw.get("trace"),
    )


def _error(raw: Any) -> ErrorInfo | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProtocolError("error must be an object")
    return ErrorInfo(
        type=fields.text(raw.get("type", "Error"), 200, "error.type"),
        message=fields.text(raw.get("message", ""), 4000, "error.message"),
        line=fields.optional_integer(raw.get("line"), "error.line"),
        trace=fields.text(raw.get("trace", ""), 4000, "error.trace"),
    )


def _setup(raw: Mapping[str, Any]) -> SetupFailure:
    try:
        kind = SetupKind(str(raw.get("kind")))
    except ValueError:
        raise ProtocolError(f"unknown setup failure {raw.get('kind')!r}") from None
    found = raw.get("found")
    return SetupFailure(
        kind=kind,
        message=fields.text(raw.get("message", ""), 4000, "setup.message"),
        line=fields.optional_integer(raw.get("line"), "setup.line"),
        found=None if found is None else fields.text(found, 200, "setup.found"),
    )


def parse_layers(raw: Any) -> dict[str, bool]:
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, bool) for k, v in raw.items()
    ):
        raise ProtocolError("layers must map names to booleans")
    return dict(raw)
