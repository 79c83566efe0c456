"""The only messages that cross a pipe, their framing, and their validation on arrival.

Every frame is a 4-byte big-endian length and a UTF-8 JSON object. A confined child can write
anything to its pipe, so what it sends is checked here (shape, types, sizes) before the trusted
side believes a word of it.
"""

from __future__ import annotations

import json
import math
import re
import struct
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from sandbox import values
from sandbox.limits import Limits

# The file names the exercise's trusted driver and trace run as (tracebacks, compiled code).
DRIVER_FILENAME = "driver.py"
TRACE_FILENAME = "trace.py"
HEADER = struct.Struct(">I")
MAX_FRAME = 8 * 1024 * 1024
# How much one os.read() of a pipe asks for. A 1 MiB request makes the allocator map and unmap
# a fresh buffer every time (docs/performance.md, "Figures behind the code's constants");
# larger frames take several reads.
READ_CHUNK = 1 << 16


class ProtocolError(ValueError):
    """A frame or message that does not follow the protocol."""


# One encoder for every frame: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def encode(message: dict[str, Any]) -> bytes:
    body = _ENCODER.encode(message).encode()
    return HEADER.pack(len(body)) + body


def encode_with_body(header: dict[str, Any], body: bytes = b"") -> bytes:
    """A frame whose payload is a one-line JSON header, a newline, then opaque bytes.

    Used between the host and the zygote so the zygote can route a job or a child's mailbox
    without parsing it: parsing allocates, and every page the zygote writes while children
    share its memory costs a copy-on-write fault.
    """
    head = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    return HEADER.pack(len(head) + 1 + len(body)) + head + b"\n" + body


def split_body(payload: bytes) -> tuple[dict[str, Any], bytes]:
    head, newline, body = payload.partition(b"\n")
    if not newline:
        raise ProtocolError("frame has no header line")
    return _json_object(head), body


# A lone surrogate reaches a string either as a JSON escape (\ud800, what json.dumps writes for
# a learner's chr(0xd800)) or as raw UTF-8-like bytes (ED A0..BF xx), which json.loads of bytes
# lets through. Either way the trusted side could not encode it again (a report, a database row).
# ---- host -> zygote: the control orders (a JSON header line, then an opaque body) ----


class Op(StrEnum):
    """What a control frame asks of the zygote."""

    run = "run"  # run (the rest of) a job; the body is the job document
    helpers = "helpers"  # compile an exercise's helpers once, by the learner policy
    trusted = "trusted"  # compile the judge's own driver or trace once, as plain Python
    stop = "stop"  # finish what runs, then exit


def order(op: Op, body: bytes = b"", **fields: Any) -> bytes:
    """The one encoder of a control frame: ``op`` and its fields as the header."""
    return encode_with_body({"op": op.value, **fields}, body)


def op_of(header: Mapping[str, Any]) -> Op | None:
    """The order a control header gives; None for one the zygote does not know (ignored)."""
    raw = header.get("op")
    return Op(raw) if isinstance(raw, str) and raw in Op.__members__ else None


# ---- child -> host: a case's record, as the child writes it and parse_case reads it ----

CASE = "case"  # the record kind ("t") of one case's result


def case_record(
    index: int,
    outcome: str,
    *,
    value: Any = None,
    error: Mapping[str, Any] | None = None,
    output: str = "",
    output_truncated: bool = False,
    duration_ms: float = 0.0,
    draws: int | None = None,
    inputs_after: Any = None,
    drawn: Any = None,
    trace: Any = None,
) -> dict[str, Any]:
    """The one writer of a case's record (``parse_case`` is its one reader)."""
    return {
        "t": CASE,
        "case": index,
        "outcome": outcome,
        "value": value,
        "error": error,
        "output": output,
        "output_truncated": output_truncated,
        "duration_ms": duration_ms,
        "draws": draws,
        "inputs_after": inputs_after,
        "drawn": drawn,
        "trace": trace,
    }


_SURROGATE_HINT = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # ValueError covers bad UTF-8 and bad JSON
        raise ProtocolError(f"frame is not JSON: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise ProtocolError("frame is not a JSON object")
    if _SURROGATE_HINT.search(raw):  # rare; the common frame pays one scan of its bytes
        cleaned: dict[str, Any] = _without_surrogates(message)
        return cleaned
    return message


def _without_surrogates(value: Any) -> Any:
    """The message with every lone surrogate, in keys and values, replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


class FrameReader:
    """Accumulates bytes from a pipe and yields whole frames; refuses oversized frames."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame

    def feed_raw(self, data: bytes) -> list[bytes]:
        """Whole payloads, unparsed."""
        self._buffer += data
        payloads = []
        start = 0
        while len(self._buffer) - start >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer, start)
            if length > self._max_frame:
                raise ProtocolError(f"frame of {length} bytes exceeds {self._max_frame}")
            end = start + HEADER.size + length
            if len(self._buffer) < end:
                break
            payloads.append(bytes(self._buffer[start + HEADER.size : end]))
            start = end
        if start:
            # A fresh buffer for what is left, not ``del buffer[:start]``: that only moves the
            # bytearray's start and keeps the consumed frames (learners' sources, in the zygote)
            # in memory that every later fork inherits; freed, glibc wipes them.
            self._buffer = bytearray(self._buffer[start:])
        return payloads

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Whole payloads, each parsed as one JSON object."""
        return [_json_object(payload) for payload in self.feed_raw(data)]


# -- what the host asks of a child ----------------------------------------------------------


class RandomMode(StrEnum):
    """How a job's randomness is set up (the exercise's ``[random] mode``)."""

    none = "none"  # the function draws nothing
    global_state = "global"  # numpy's legacy global state, re-seeded by the judge before each call
    generator = "generator"  # a generator argument the judge builds and counts draws of


@dataclass(frozen=True)
class Job:
    """One submission for the sandbox: code and case inputs, never anything expected of them.

    The only shape in which work crosses into a child. ``document()`` is what the child
    receives; ``from_document`` reads it back there (the child trusts the zygote's pipe).
    """

    code: str
    entry_point: str
    cases: tuple[Mapping[str, Any], ...]
    parameters: Mapping[str, str]  # argument name -> kind, in call order
    limits: Limits
    random_mode: RandomMode = RandomMode.none
    rng_argument: str | None = None  # the rng parameter, in generator mode
    helpers: str = ""  # the exercise's trusted helpers, run before the learner's code
    # Trusted source defining ``trace(...)`` with the entry point's parameters: called after the
    # entry point on fresh arguments, its JSON result (what the reference did, step by step)
    # goes back with the case. Only reference jobs carry one.
    trace: str = ""
    # Trusted source defining ``drive(step, Generator, *arguments)``: called instead of the
    # entry point, it runs ``step`` many times and returns counts (the distribution check).
    driver: str = ""
    # The exercise's own reference solution: plain Python in the confined child (like the trace
    # and the driver), not compiled by the learner policy. Never set for a learner's code.
    trusted: bool = False

    def document(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "entry_point": self.entry_point,
            "cases": [dict(case) for case in self.cases],
            "parameters": dict(self.parameters),
            "random_mode": self.random_mode.value,
            "rng_argument": self.rng_argument,
            "helpers": self.helpers,
            "trace": self.trace,
            "driver": self.driver,
            "trusted": self.trusted,
            "limits": asdict(self.limits),
        }

    def body(self, encoded: dict[int, tuple[Mapping[str, Any], str]] | None = None) -> bytes:
        """``document()`` as the JSON the child reads, each case encoded once per ``encoded``.

        Jobs share case inputs (every Run its examples, a Submit's learner and reference jobs
        its random cases): ``encoded`` maps a case object (kept alive beside its text) to its
        JSON, so the same object is not encoded twice; a case is therefore never changed once
        it is in a job. The bytes are those of one ``json.dumps`` of the document, "cases" first,
        except that an ndarray parameter's nested lists go as their float64 bytes
        (``values.packed_array``), which the child reads back into the very same array.
        """
        memo: dict[int, tuple[Mapping[str, Any], str]] = {} if encoded is None else encoded
        packed = frozenset(name for name, kind in self.parameters.items() if kind == "ndarray")
        parts = []
        for case in self.cases:
            known = memo.pop(id(case), None)  # put back last: the memo's oldest go first
            if known is None or known[0] is not case:
                known = (case, _case_text(case, packed))
            memo[id(case)] = known
            parts.append(known[1])
        document = self.document()
        del document["cases"]
        rest = json.dumps(document, separators=(",", ":"))
        return ('{"cases":[' + ",".join(parts) + "]," + rest[1:]).encode("utf-8", "surrogatepass")

    @classmethod
    def from_document(cls, raw: Mapping[str, Any]) -> Job:
        return cls(
            code=raw["code"],
            entry_point=raw["entry_point"],
            cases=tuple(raw["cases"]),
            parameters=dict(raw["parameters"]),
            limits=Limits(**raw["limits"]),
            random_mode=RandomMode(raw["random_mode"]),
            rng_argument=raw["rng_argument"],
            helpers=raw["helpers"],
            trace=raw.get("trace", ""),
            driver=raw.get("driver", ""),
            trusted=raw.get("trusted", False) is True,
        )


def _case_text(case: Mapping[str, Any], packed: frozenset[str]) -> str:
    """One case's inputs as the job document's JSON, the ``packed`` (ndarray) ones as bytes.

    An exercise's parameter kinds are fixed, so ``Job.body``'s memo keys a case's text by the
    case alone: the jobs that share a case (a learner's and the reference's) share the kinds."""
    wire = {name: values.packed_array(raw) if name in packed else raw for name, raw in case.items()}
    return json.dumps(wire, separators=(",", ":"))


# -- what the child reports ---------------------------------------------------------------


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


@dataclass(frozen=True)
class ErrorInfo:
    """An exception in learner code, reduced to what the learner needs to see."""

    type: str
    message: str
    line: int | None = None
    trace: str = ""


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


def _text(value: Any, limit: int, name: str) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"{name} must be a string")
    return value[:limit]


def _optional_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if type(value) is not int:
        raise ProtocolError(f"{name} must be an int or null")
    return value


def parse_error(raw: Any) -> ErrorInfo | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProtocolError("error must be an object")
    return ErrorInfo(
        type=_text(raw.get("type", "Error"), 200, "error.type"),
        message=_text(raw.get("message", ""), 4000, "error.message"),
        line=_optional_int(raw.get("line"), "error.line"),
        trace=_text(raw.get("trace", ""), 4000, "error.trace"),
    )


def parse_case(raw: dict[str, Any], output_cap: int) -> CaseRun:
    """Validate one case report from a child."""
    try:
        outcome = Outcome(str(raw.get("outcome")))
    except ValueError:
        raise ProtocolError(f"unknown case outcome {raw.get('outcome')!r}") from None
    duration = raw.get("duration_ms", 0.0)
    if not isinstance(duration, (int, float)) or isinstance(duration, bool) or duration < 0:
        raise ProtocolError("duration_ms must be a non-negative number")
    draws = _optional_int(raw.get("draws"), "draws")
    inputs_after = raw.get("inputs_after")
    if inputs_after is not None and not isinstance(inputs_after, dict):
        raise ProtocolError("inputs_after must be an object")
    truncated = raw.get("output_truncated", False)
    if not isinstance(truncated, bool):
        raise ProtocolError("output_truncated must be a bool")
    drawn = _drawn(raw.get("drawn"))
    return CaseRun(
        outcome=outcome,
        value=raw.get("value"),
        error=parse_error(raw.get("error")),
        output=_text(raw.get("output", ""), output_cap, "output"),
        output_truncated=truncated,
        duration_ms=float(duration),
        draws=draws,
        inputs_after=inputs_after,
        drawn=drawn,
        trace=raw.get("trace"),
    )


MAX_DRAWN = 64


def _drawn(raw: Any) -> tuple[float | None, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_DRAWN:
        raise ProtocolError(f"drawn must be a list of at most {MAX_DRAWN} numbers")
    for item in raw:
        if item is not None and (type(item) not in (int, float) or not math.isfinite(item)):
            raise ProtocolError("drawn must hold finite numbers or null")
    return tuple(None if item is None else float(item) for item in raw)


def parse_setup(raw: Any) -> SetupFailure | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ProtocolError("setup must be an object")
    try:
        kind = SetupKind(str(raw.get("kind")))
    except ValueError:
        raise ProtocolError(f"unknown setup failure {raw.get('kind')!r}") from None
    return SetupFailure(
        kind=kind,
        message=_text(raw.get("message", ""), 4000, "setup.message"),
        line=_optional_int(raw.get("line"), "setup.line"),
        found=None if raw.get("found") is None else _text(raw["found"], 200, "setup.found"),
    )


def parse_layers(raw: Any) -> dict[str, bool]:
    if not isinstance(raw, dict) or not all(
        isinstance(k, str) and isinstance(v, bool) for k, v in raw.items()
    ):
        raise ProtocolError("layers must map names to booleans")
    return dict(raw)
