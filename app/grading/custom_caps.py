"""The caps of a learner's own input (``[custom]`` in exercise.toml): how long a list, how many
numbers in all, which items are ints, which arrays hold distributions, which lists must be one
or hold something, a number's range, an array's rank, a value's type, the bounds of entries,
which parameters go item by item together. The catalog reads them with each exercise;
custom_input checks inputs by them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.exercise_keys import CUSTOM_KEYS
from app.grading.compare import TypeSpec, parse_type
from sandbox import SNAPSHOT_ITEMS

# Custom inputs: the longest list or array dimension, and every number of an input together.
DEFAULT_MAX_LENGTH = 1000
# Within what the sandbox sends back of the arguments after a call (the mutation check): an
# input past it could not be checked, so none is allowed.
DEFAULT_MAX_ELEMENTS = SNAPSHOT_ITEMS
# The most dimensions a custom ndarray input may have (numpy's own limit is 64), and the default
# for a parameter whose ``[custom] ndim`` is not declared.
MAX_NDIM = 8
# The most lists and tuples a declared value type (``[custom] types``) nests, as deep as an
# undeclared value may go.
MAX_TYPE_DEPTH = 8


class CapsError(ValueError):
    """A ``[custom]`` table that does not follow the format; the message says how."""


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise CapsError(message)


@dataclass(frozen=True)
class ScalarRange:
    """A ``value`` parameter that is one number: its type and closed range (``[custom]``)."""

    type: str  # "int" | "float"
    low: float
    high: float


@dataclass(frozen=True)
class Bounds:
    """The closed range every number of a parameter lies in (``[custom] bounds``); None: that
    side is open."""

    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class InputCaps:
    """How large a learner's own input may be (``[custom]`` in exercise.toml)."""

    max_length: int = DEFAULT_MAX_LENGTH
    max_elements: int = DEFAULT_MAX_ELEMENTS
    item_types: Mapping[str, str] = field(default_factory=dict)  # param -> "int" | "float"
    distributions: tuple[str, ...] = ()  # ndarray params whose rows are probability vectors
    scalars: Mapping[str, ScalarRange] = field(default_factory=dict)  # value params, one number
    ndim: Mapping[str, int] = field(default_factory=dict)  # ndarray params of a fixed rank
    nonempty: tuple[str, ...] = ()  # list or ndarray params refused when they hold nothing
    # list params refused unless a probability distribution: param -> tolerance of the sum
    probabilities: Mapping[str, float] = field(default_factory=dict)
    types: Mapping[str, TypeSpec] = field(default_factory=dict)  # value params' declared type
    bounds: Mapping[str, Bounds] = field(default_factory=dict)  # numeric params: their entries
    # groups of params that go item by item together: one length (an array's first dimension)
    same_length: tuple[tuple[str, ...], ...] = ()


def read_caps(raw: Any, parameters: dict[str, str]) -> InputCaps:
    """An exercise.toml's ``[custom]`` table as the caps of its learners' own inputs; raises
    CapsError saying what is wrong (the catalog adds the file's name)."""
    keys = set(CUSTOM_KEYS)
    _require(isinstance(raw, dict) and set(raw) <= keys, f"[custom] may only set {sorted(keys)}")
    for key in ("max_length", "max_elements"):
        value = raw.get(key, 1)
        _require(type(value) is int and value > 0, f"[custom] {key} must be a positive integer")
    _require(
        raw.get("max_elements", 1) <= SNAPSHOT_ITEMS,
        f"[custom] max_elements may be at most {SNAPSHOT_ITEMS}, what the sandbox sends back "
        "of the arguments for the mutation check",
    )
    items = raw.get("items", {})
    _require(
        isinstance(items, dict)
        and all(parameters.get(n) == "list" and t in ("int", "float") for n, t in items.items()),
        '[custom] items maps list parameters to "int" or "float"',
    )
    distributions = raw.get("distributions", [])
    _require(
        isinstance(distributions, list)
        and all(parameters.get(n) == "ndarray" for n in distributions),
        "[custom] distributions must list ndarray parameters",
    )
    ndim = raw.get("ndim", {})
    _require(
        isinstance(ndim, dict)
        and all(
            parameters.get(n) == "ndarray" and type(d) is int and 1 <= d <= MAX_NDIM
            for n, d in ndim.items()
        ),
        f"[custom] ndim maps ndarray parameters to their number of dimensions, 1 to {MAX_NDIM}",
    )
    types = _types(raw.get("types", {}), parameters)
    scalars = _scalar_ranges(raw.get("scalars", {}), parameters)
    clash = sorted(set(types) & set(scalars))
    _require(not clash, f"[custom] {', '.join(clash)}: both types and scalars; declare one")
    sized = {n for n, kind in parameters.items() if kind in ("list", "ndarray")}
    sized |= {n for n, spec in types.items() if spec.name == "list"}
    nonempty = raw.get("nonempty", [])
    _require(
        isinstance(nonempty, list) and all(n in sized for n in nonempty),
        "[custom] nonempty must list list or ndarray parameters, or value parameters whose "
        "[custom] types is a list[...]",
    )
    numeric = {n for n, kind in parameters.items() if kind == "ndarray"} | set(items)
    numeric |= {n for n, spec in types.items() if _numbers_only(spec)}
    return InputCaps(
        max_length=raw.get("max_length", DEFAULT_MAX_LENGTH),
        max_elements=raw.get("max_elements", DEFAULT_MAX_ELEMENTS),
        item_types=dict(items),
        distributions=tuple(distributions),
        scalars=scalars,
        ndim=dict(ndim),
        nonempty=tuple(nonempty),
        probabilities=_probabilities(raw.get("probabilities", {}), parameters),
        types=types,
        bounds=_bounds(raw.get("bounds", {}), parameters, numeric),
        same_length=_same_length(raw.get("same_length", []), parameters, sized),
    )


def _types(raw: Any, parameters: dict[str, str]) -> dict[str, TypeSpec]:
    """``[custom] types``: value parameters mapped to their type in the ``returns`` grammar,
    e.g. ``{ beams = "list[tuple[list[int], float]]" }``."""
    message = '[custom] types maps value parameters to a type such as "list[tuple[int, float]]"'
    _require(isinstance(raw, dict), message)
    types = {}
    for name, written in raw.items():
        _known("types", name, parameters)
        _require(parameters.get(name) == "value", f"{message}; {name!r} is not a value parameter")
        _require(isinstance(written, str), f"{message} ({name})")
        try:
            spec = parse_type(written)
        except ValueError as error:
            raise CapsError(
                f"[custom] types: {name}: {written!r} is not a type of the returns grammar "
                f"({error})"
            ) from None
        _require(
            _depth(spec) <= MAX_TYPE_DEPTH,
            f"[custom] types: {name}: nests more than {MAX_TYPE_DEPTH} lists and tuples",
        )
        types[name] = spec
    return types


def _depth(spec: TypeSpec) -> int:
    return 0 if not spec.items else 1 + max(_depth(item) for item in spec.items)


def _numbers_only(spec: TypeSpec) -> bool:
    """A type that is an array of numbers written as nested lists. A tuple is not: its items
    are different things (a beam's tokens and its score), so no one range fits them all."""
    if spec.name == "list":
        return _numbers_only(spec.items[0])
    return spec.name in ("int", "float")


def _known(key: str, name: Any, parameters: dict[str, str]) -> None:
    """A name in a ``[custom]`` declaration is one of the function's parameters."""
    _require(
        name in parameters,
        f"[custom] {key}: {name!r} is not a parameter (the parameters are {', '.join(parameters)})",
    )


def _bounds(raw: Any, parameters: dict[str, str], numeric: set[str]) -> dict[str, Bounds]:
    """``[custom] bounds``: numeric parameters mapped to ``{ min = <number>, max = <number> }``
    (either or both, inclusive), the range of every entry, e.g. ``{ log_probs = { max = 0 } }``."""
    message = (
        "[custom] bounds maps ndarray parameters, list parameters with [custom] items and value "
        "parameters whose [custom] types is a list of numbers (list[float], list[list[int]]) to "
        "{ min = <number>, max = <number> } (either or both)"
    )
    _require(isinstance(raw, dict), message)
    bounds = {}
    for name, spec in raw.items():
        _known("bounds", name, parameters)
        _require(name in numeric, f"{message}; {name!r} is not such a parameter")
        ok = (
            isinstance(spec, dict)
            and bool(spec)
            and set(spec) <= {"min", "max"}
            and all(type(end) in (int, float) and math.isfinite(end) for end in spec.values())
        )
        _require(ok, f"{message} ({name})")
        low, high = spec.get("min"), spec.get("max")
        _require(
            low is None or high is None or low <= high,
            f"[custom] bounds: {name}: min {low} is above max {high}",
        )
        bounds[name] = Bounds(low, high)
    return bounds


def _same_length(
    raw: Any, parameters: dict[str, str], sized: set[str]
) -> tuple[tuple[str, ...], ...]:
    """``[custom] same_length``: groups of parameters that go item by item together (one row
    of an array per item of a list), e.g. ``[["beams", "log_probs"]]``."""
    message = (
        "[custom] same_length must be a list of groups of two or more list or ndarray parameters "
        "(or value parameters whose [custom] types is a list[...])"
    )
    _require(isinstance(raw, list), message)
    for group in raw:
        _require(
            isinstance(group, list)
            and len(group) >= 2
            and len(set(group)) == len(group)
            and all(isinstance(n, str) for n in group),
            message,
        )
        for name in group:
            _known("same_length", name, parameters)
            _require(name in sized, f"{message}; {name!r} is not one")
    return tuple(tuple(group) for group in raw)


def _probabilities(raw: Any, parameters: dict[str, str]) -> dict[str, float]:
    """``[custom] probabilities``: list parameters that must be a probability distribution,
    each mapped to how far from 1 its sum may be, e.g. ``{ probs = 1e-6 }`` (round-off in a
    learner's typed numbers, such as 0.1 + 0.2 + 0.7)."""
    message = (
        "[custom] probabilities maps list parameters to the tolerance of their sum, "
        "a number from 0 to below 1"
    )
    _require(isinstance(raw, dict), message)
    for name, tolerance in raw.items():
        _require(
            parameters.get(name) == "list"
            and type(tolerance) in (int, float)
            and 0 <= tolerance < 1,
            f"{message} ({name})",
        )
    return {name: float(tolerance) for name, tolerance in raw.items()}


def _scalar_ranges(raw: Any, parameters: dict[str, str]) -> dict[str, ScalarRange]:
    """``[custom] scalars``: value parameters that are one number, e.g. ``{ type = "int",
    min = 0, max = 1000 }``; a learner's input outside the range is a 422 before anything runs."""
    message = (
        '[custom] scalars maps value parameters to { type = "int" | "float", min = <number>, '
        "max = <number> } with min <= max"
    )
    _require(isinstance(raw, dict), message)
    ranges = {}
    for name, spec in raw.items():
        ok = (
            parameters.get(name) == "value"
            and isinstance(spec, dict)
            and set(spec) == {"type", "min", "max"}
            and spec["type"] in ("int", "float")
            and all(
                type(spec[end]) in (int, float) and math.isfinite(spec[end])
                for end in ("min", "max")
            )
        )
        _require(ok and spec["min"] <= spec["max"], f"{message} ({name})")
        if spec["type"] == "int":
            _require(
                all(type(spec[end]) is int for end in ("min", "max")),
                f"[custom] scalars: the range of the int parameter {name} must be integers",
            )
        ranges[name] = ScalarRange(spec["type"], spec["min"], spec["max"])
    return ranges
