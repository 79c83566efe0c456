"""Pure, trusted comparisons of raw sandbox outputs with expected ones, in a learner's words.

Input: what the child reported (tagged values, draw counts, inputs after the call). Output: a
status and a message per case. Nothing here runs learner code or trusts its ``__eq__``: values
arrive as JSON tags describing exact types, and are compared as plain data.
"""

from __future__ import annotations

import functools
import os
import re
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.grading.tolerance import EXACT, Tolerance, as_number, float_mismatch
from sandbox import CaseRun, Outcome

# -- the return contract: a tiny type grammar ("tuple[list[int], int]") ---------------------


@dataclass(frozen=True)
class TypeSpec:
    name: str  # int | float | bool | str | list | tuple
    items: tuple[TypeSpec, ...] = ()

    def __str__(self) -> str:
        if not self.items:
            return self.name
        return f"{self.name}[{', '.join(str(item) for item in self.items)}]"


_TOKEN = re.compile(r"\s*(\w+|\[|\]|,)")


@functools.lru_cache(maxsize=64)
def parse_type(text: str) -> TypeSpec:
    """Parse the ``returns`` grammar: int, float, bool, str, list[T], tuple[T1, T2, ...]."""
    tokens = _TOKEN.findall(text)
    if "".join(tokens) != re.sub(r"\s+", "", text):
        raise ValueError(f"cannot parse return type {text!r}")
    spec, rest = _parse(tokens)
    if rest:
        raise ValueError(f"unexpected {''.join(rest)!r} in return type {text!r}")
    return spec


def _parse(tokens: list[str]) -> tuple[TypeSpec, list[str]]:
    if not tokens:
        raise ValueError("empty return type")
    head, rest = tokens[0], tokens[1:]
    if head in ("int", "float", "bool", "str"):
        return TypeSpec(head), rest
    if head not in ("list", "tuple") or not rest or rest[0] != "[":
        raise ValueError(f"unknown type {head!r}")
    rest = rest[1:]
    items = []
    while True:
        item, rest = _parse(rest)
        items.append(item)
        if rest and rest[0] == ",":
            rest = rest[1:]
            continue
        if rest and rest[0] == "]":
            rest = rest[1:]
            break
        raise ValueError("unbalanced brackets in return type")
    if head == "list" and len(items) != 1:
        raise ValueError("list takes exactly one item type")
    return TypeSpec(head, tuple(items)), rest


# -- reading tagged values ------------------------------------------------------------------

_ARTICLE = {"int": "an int", "float": "a float", "bool": "a bool", "str": "a str"}


def describe(tagged: Any) -> str:
    """The learner-facing type name of a tagged value: list, numpy.ndarray, numpy.int64, ..."""
    if not isinstance(tagged, dict):
        return "an unreadable value"
    kind = tagged.get("t")
    if kind == "ndarray":
        return "numpy.ndarray"
    if kind == "numpy":
        return f"numpy.{tagged.get('dtype', '?')}"
    if kind == "none":
        return "None"
    if kind == "object":
        return str(tagged.get("type", "object"))
    if kind == "too_big":
        return f"a {tagged.get('type', 'value')} too large to report"
    return str(kind)


class Unshown(str):
    """A value the sandbox could not show (too large): text for display that equals nothing,
    not even another placeholder, so two values that were never seen are never "equal"."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return False

    def __ne__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class NonFinite(str):
    """A float the sandbox sent as "nan", "inf" or "-inf" (JSON has no such numbers): the same
    text in the report's JSON, written as Python writes the float in a message (-inf, not a
    quoted string a learner might have returned)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return str(self)


def plain(tagged: Any) -> Any:
    """A tagged value as plain JSON for display and comparison (tuples become lists)."""
    if not isinstance(tagged, dict):
        return None
    kind = tagged.get("t")
    value = tagged.get("v")
    if kind in ("list", "tuple"):
        return [plain(item) for item in value] if isinstance(value, list) else None
    if kind == "dict":
        pairs = value if isinstance(value, list) else []
        return {
            str(plain(pair[0])): plain(pair[1])
            for pair in pairs
            if isinstance(pair, list) and len(pair) == 2
        }
    if kind == "int" and tagged.get("big"):
        return Unshown("<an int too large to show>")
    if kind == "object":
        return f"<{tagged.get('type', 'object')} object: {tagged.get('repr', '')}>"
    if kind == "too_big":
        return Unshown(f"<{tagged.get('type', 'value')} too large to show>")
    if kind == "float" and isinstance(value, str):
        return NonFinite(value)
    return value


def _is_integer(tagged: dict[str, Any]) -> bool:
    kind = tagged.get("t")
    if kind == "int":
        return True
    dtype = str(tagged.get("dtype", ""))
    return kind == "numpy" and (dtype.startswith("int") or dtype.startswith("uint"))


def _is_float(tagged: dict[str, Any]) -> bool:
    kind = tagged.get("t")
    if kind == "float" or _is_integer(tagged):
        return True
    return kind == "numpy" and str(tagged.get("dtype", "")).startswith("float")


def type_problem(tagged: Any, spec: TypeSpec, what: str, names: tuple[str, ...] = ()) -> str | None:
    """None when the value fits the contract, else one sentence saying exactly what is wrong.

    ``names`` names the items of a returned tuple (e.g. accepted_tokens, num_accepted).
    """
    if not isinstance(tagged, dict):
        return f"{what} could not be read"
    kind = tagged.get("t")
    if spec.name == "int":
        if _is_integer(tagged):
            return None
        value = plain(tagged)
        shown = f" ({value!r})" if kind in ("float", "bool", "numpy", "str") else ""
        return f"{what} must be an int, got {describe(tagged)}{shown}"
    if spec.name == "float":
        return None if _is_float(tagged) else f"{what} must be a float, got {describe(tagged)}"
    if spec.name == "bool":
        ok = kind == "bool" or (kind == "numpy" and tagged.get("dtype") == "bool")
        return None if ok else f"{what} must be a bool, got {describe(tagged)}"
    if spec.name == "str":
        return None if kind == "str" else f"{what} must be a str, got {describe(tagged)}"
    if kind == "too_big" and tagged.get("type") == spec.name:
        # The right type, but nothing of it could be seen: say that, not "must be a tuple".
        return f"{what} is a {spec.name} too large to report, so it cannot be checked"
    if kind != spec.name:
        return f"{what} must be a {spec.name}, got {describe(tagged)}"
    items = tagged.get("v")
    if not isinstance(items, list):
        return f"{what} could not be read"
    if spec.name == "tuple":
        if len(items) != len(spec.items):
            return f"{what} must be a tuple of {len(spec.items)} items, got {len(items)}"
        for position, (item, item_spec) in enumerate(zip(items, spec.items, strict=True)):
            part = names[position] if position < len(names) else f"item {position} of {what}"
            problem = type_problem(item, item_spec, part)
            if problem:
                return problem
        return None
    for position, item in enumerate(items):
        problem = type_problem(item, spec.items[0], f"item {position} of {what}")
        if problem:
            return problem
    return None


# -- comparing values -----------------------------------------------------------------------


def same(actual: Any, expected: Any, tolerance: Tolerance = EXACT) -> bool:
    """Plain-data equality; floats within ``tolerance`` of the expected (ints, bools exactly)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(actual) is type(expected) and actual == expected
    wanted, got = as_number(expected), as_number(actual)
    if wanted is not None and got is not None:
        if isinstance(wanted, int) and isinstance(got, int):
            return got == wanted
        return tolerance.allows(float(got), float(wanted))
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            same(a, e, tolerance) for a, e in zip(actual, expected, strict=True)
        )
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(
            same(actual[k], expected[k], tolerance) for k in expected
        )
    return bool(actual == expected) and type(actual) is type(expected)


def _float_pair(actual: Any, expected: Any) -> tuple[float, float] | None:
    """Both values as floats when they are numbers and at least one is a float, else None."""
    got, wanted = as_number(actual), as_number(expected)
    if got is None or wanted is None or (isinstance(got, int) and isinstance(wanted, int)):
        return None
    return float(got), float(wanted)


@dataclass(frozen=True)
class Feedback:
    """Exercise wording for sequence mismatches; ``{i}``, ``{actual}``, ``{expected}`` fill in.

    ``empty`` (whole list in ``{expected}``) is for an empty list where the reference has items:
    an exercise whose answer can never be empty says so, instead of "position 0: ...".
    """

    extra: str = "position {i}: you returned {actual} but the reference stopped before it"
    missing: str = "position {i}: you stopped, but the reference continues with {expected}"
    differs: str = "position {i}: you returned {actual} but the reference returned {expected}"
    empty: str | None = None


def value_problem(
    actual: Any, expected: Any, what: str, feedback: Feedback, tolerance: Tolerance = EXACT
) -> str | None:
    """None when equal (floats within ``tolerance``), else the first difference in words."""
    if same(actual, expected, tolerance):
        return None
    if isinstance(actual, list) and isinstance(expected, list):
        if not actual and feedback.empty is not None:
            return feedback.empty.format(i=0, actual="[]", expected=_show(expected))
        for i in range(max(len(actual), len(expected))):
            if i >= len(expected):
                return feedback.extra.format(i=i, actual=_show(actual[i]), expected="")
            if i >= len(actual):
                return feedback.missing.format(i=i, actual="", expected=_show(expected[i]))
            if not same(actual[i], expected[i], tolerance):
                floats = _float_pair(actual[i], expected[i])
                if floats:
                    return f"position {i}: {float_mismatch(*floats, tolerance)}"
                return feedback.differs.format(
                    i=i, actual=_show(actual[i]), expected=_show(expected[i])
                )
    floats = _float_pair(actual, expected)
    if floats:
        return f"{what}: {float_mismatch(*floats, tolerance)}"
    return f"{what}: you returned {_show(actual)} but the reference returned {_show(expected)}"


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


# What the mutation check always allowed: it is after pops, clamps and overwrites, not round-off.
_MUTATION_TOLERANCE = Tolerance(rel_tol=1e-9, abs_tol=1e-12)


_CONTAINERS = (dict, list)


def _holds_tag(snapshot: Any, found: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether a tagged snapshot holds, at any depth, a tag (sandbox.values) that ``found``.

    A walk with a stack that steps over plain numbers without a call: a Submit's snapshots
    hold thousands of them, and a recursive walk over each was most of a report's cost."""
    stack = [snapshot]
    while stack:
        item = stack.pop()
        if type(item) is dict:  # a tag: only its "v" holds others
            if found(item):
                return True
            inner = item.get("v")
            if type(inner) in _CONTAINERS:
                stack.append(inner)
        elif type(item) is list:
            stack.extend(value for value in item if type(value) in _CONTAINERS)
    return False


def _unseen(snapshot: Any) -> bool:
    """Whether a snapshot holds a part the sandbox could not send (too big to compare)."""
    return _holds_tag(snapshot, lambda tag: tag.get("t") == "too_big" or bool(tag.get("big")))


def _holds_tuple(snapshot: Any) -> bool:
    return _holds_tag(snapshot, lambda tag: tag.get("t") == "tuple")


def unchecked_arguments(after: dict[str, Any] | None, kinds: dict[str, str]) -> list[str]:
    """The arguments whose state after the call was too big to send back (changed ones: the
    child sends back only what is no longer as built)."""
    if after is None:
        return []
    return [name for name in kinds if name in after and _unseen(after[name])]


def mutation_problem(
    inputs: dict[str, Any],
    after: dict[str, Any] | None,
    kinds: dict[str, str],
    unchecked: list[str] | None = None,
) -> str | None:
    """Which argument the function changed in place, if any (``unchecked``: those too large to
    show, when the caller has found them already)."""
    if after is None:
        return None
    if unchecked is None:
        unchecked = unchecked_arguments(after, kinds)
    for name, kind in kinds.items():
        if name not in after:
            continue
        if name in unchecked:
            # The child sends back only an argument that is no longer as it was built, and no
            # input is too large to send or holds an integer past 64 bits: this one was changed
            # (grown past the snapshot, or given such an integer, to hide an earlier change).
            return (
                f"your function modified its argument {name} (afterwards it was too large for "
                "the judge to show); the function must not change its inputs"
            )
        if kind != "ndarray" and _holds_tuple(after[name]):
            # An input is JSON, which has no tuples, and plain() shows a tuple as a list: the
            # comparison below would not see the caller's list turned into a tuple.
            return (
                f"your function modified its argument {name} (it turned a list in it into a "
                "tuple); the function must not change its inputs"
            )
        now = after[name] if kind == "ndarray" else plain(after[name])
        # Python's == first: it runs in C and settles the usual case (untouched) at once; an
        # in-place change of a value to an equal one of another type (1 -> 1.0) is not news,
        # nor is one at the last bits (re-normalising a row that already sums to 1).
        if now != inputs[name] and not same(now, inputs[name], _MUTATION_TOLERANCE):
            return (
                f"your function modified its argument {name} (it was {_show(inputs[name])}, "
                f"afterwards {_show(now)}); the function must not change its inputs"
            )
    return None


# -- keeping the judge's internals out of reports ---------------------------------------------

_INTERNAL_PREFIXES = sorted(
    {str(Path(__file__).resolve().parents[2]), sys.prefix, sys.base_prefix, sys.exec_prefix},
    key=len,
    reverse=True,
)


def scrub(text: str | None) -> str | None:
    """Removes the judge's own paths from a message (learners see their code, not ours)."""
    if not text:
        return text
    for prefix in _INTERNAL_PREFIXES:
        if prefix and prefix != "/":
            text = text.replace(prefix, "<judge>")
    return text


_SIGNALS: dict[int, str] = {
    signal.SIGSEGV: "a segmentation fault (the process touched invalid memory)",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
    signal.SIGFPE: "a floating-point exception",
    signal.SIGKILL: "being killed",
    signal.SIGXCPU: "running out of CPU time",
    signal.SIGILL: "an illegal instruction",
}


def process_end(status: int | None, malformed: str | None, when: str) -> str:
    """How the process running the learner's code ended, from its wait status (or why its reply
    could not be read); ``when`` ends the sentence of an early exit."""
    if malformed:
        return f"malformed reply from the sandbox ({scrub(malformed)})"
    if status is not None and os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return "the process running your code ended with " + _SIGNALS.get(
            number, f"signal {number}"
        )
    if status is not None and os.WIFEXITED(status):
        return (
            f"the process running your code exited early (exit code {os.WEXITSTATUS(status)}) "
            + when
        )
    return "the process running your code ended unexpectedly"


def error_message(run: CaseRun, limits_text: dict[str, str]) -> str:
    """The sentence for a case that did not return normally."""
    error = run.error
    if run.outcome is Outcome.timeout:
        return f"time limit exceeded: {limits_text['time']}"
    if run.outcome is Outcome.memory:
        return f"memory limit exceeded: {limits_text['memory']}"
    if run.outcome is Outcome.output:
        # A print flood is cut in the child (its output comes back, cut); a result or output
        # too large for the reply is found by the zygote, which stopped the child.
        detail = (
            "too much output"
            if run.output_truncated
            else "your result (or printed output) is too large to report"
        )
        return f"output limit exceeded: {detail} (print less, at most {limits_text['output']})"
    if run.outcome is Outcome.bad_input:
        detail = f" ({error.type}: {error.message})" if error and error.message else ""
        return f"your function was not called: this input cannot be made into its arguments{detail}"
    if run.outcome is Outcome.crashed:
        malformed = error.message if error is not None else None
        return process_end(run.exit_status, malformed, "before this case finished")
    if run.outcome is Outcome.not_run:
        # In a check's job, after an earlier input or pair spent the budget (case rows name
        # the case that did; reports.not_run_message).
        return (
            "not run, after an earlier input of the check used up the time (or the room for "
            "results) that its inputs share: see the row that did"
        )
    if error is None:
        return "your code failed"
    where = f" (line {error.line})" if error.line else ""
    text = f"{error.type}{where}: {error.message}" if error.message else f"{error.type}{where}"
    if error.trace:
        text += "\nTraceback (your code only):\n" + error.trace
    return scrub(text) or ""
