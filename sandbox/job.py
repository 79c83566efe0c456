"""A job: one submission's work as the host hands it to the sandbox, and its document's bytes.

Code and case inputs, never anything expected of them: the only shape in which work crosses
into a child. The host encodes it once (``Job.body``) and the zygote passes those bytes on
unread, behind a run order (``sandbox.protocol``); the child reads them back
(``Job.from_document``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from sandbox import values
from sandbox.limits import Limits

# The file names the exercise's trusted driver and trace run as (tracebacks, compiled code).
DRIVER_FILENAME = "driver.py"
TRACE_FILENAME = "trace.py"


class RandomMode(StrEnum):
    """How a job's randomness is set up (the exercise's ``[random] mode``)."""

    none = "none"  # the function draws nothing
    global_state = "global"  # numpy's legacy global state, re-seeded by the judge before each call
    generator = "generator"  # a generator argument the judge builds and counts draws of


@dataclass(frozen=True, slots=True)
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
