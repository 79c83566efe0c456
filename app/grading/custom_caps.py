"""The caps of a learner's own input (``[custom]`` in exercise.toml): how long a list, how many
numbers in all, which items are ints, which arrays hold distributions, which lists must be one
or hold something, a number's range, an array's rank, a value's type, the bounds of entries,
which parameters go item by item together, the sizes arrays and lists share (a shape such as
``(gamma + 1, V)``) and which entries index one of those sizes. The catalog reads them with
each exercise; custom_input checks inputs by them.
"""

from __future__ import annotations

import math
import re
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
class Extent:
    """One dimension of a declared shape (``[custom] shapes``): a named size plus an offset,
    ``"gamma + 1"``, or a fixed number when ``size`` is None."""

    size: str | None
    offset: int = 0

    def __str__(self) -> str:
        if self.size is None:
            return str(self.offset)
        if self.offset == 0:
            return self.size
        return f"{self.size} {'+' if self.offset > 0 else '-'} {abs(self.offset)}"


# A dimension as written: a size's name, optionally plus or minus a whole number, or a number.
_EXTENT = re.compile(
    r"\s*(?:(?P<size>[A-Za-z_]\w*)\s*(?:(?P<sign>[+-])\s*(?P<offset>\d+))?|(?P<fixed>\d+))\s*"
)


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
    # list or ndarray params and the sizes of their dimensions, in the parameters' call order
    shapes: Mapping[str, tuple[Extent, ...]] = field(default_factory=dict)
    indices: Mapping[str, str] = field(default_factory=dict)  # int-list params -> size indexed
    # int-list params -> the 2-D ndarray whose row i gives entry i a probability above 0
    support: Mapping[str, str] = field(default_factory=dict)


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
    _require(isinstance(items, dict), '[custom] items maps list parameters to "int" or "float"')
    for name, item_type in items.items():
        _known("items", name, parameters)
        _require(
            parameters[name] == "list" and item_type in ("int", "float"),
            f'[custom] items maps list parameters to "int" or "float" ({name})',
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
    ndim = dict(ndim)
    shapes = _shapes(raw.get("shapes", {}), parameters, sized, ndim)
    for name, extents in shapes.items():  # a shape says the rank too
        ndim.setdefault(name, len(extents))
    whole = {n for n, t in items.items() if t == "int"}
    whole |= {n for n, spec in types.items() if spec.name == "list" and spec.items[0].name == "int"}
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
        shapes=shapes,
        indices=_indices(raw.get("indices", {}), parameters, whole, shapes),
        support=_support(raw.get("support", {}), parameters, whole, ndim),
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


def _shapes(
    raw: Any, parameters: dict[str, str], sized: set[str], ndim: dict[str, int]
) -> dict[str, tuple[Extent, ...]]:
    """``[custom] shapes``: list or ndarray parameters mapped to the sizes of their dimensions,
    e.g. ``{ p = ["gamma + 1", "V"], q = ["gamma", "V"], draft = ["gamma"] }``: a size named in
    two places is one number, so q has one row fewer than p and as many columns."""
    message = (
        "[custom] shapes maps list or ndarray parameters to a list of their dimensions, each a "
        'size\'s name, a name plus or minus a whole number, or a number: ["gamma + 1", "V"]'
    )
    _require(isinstance(raw, dict), message)
    shapes = {}
    for name in parameters:  # in call order: the first to hold a size fixes it
        if name not in raw:
            continue
        written = raw[name]
        _require(name in sized, f"{message}; {name!r} is not a list or ndarray parameter")
        _require(isinstance(written, list) and bool(written), f"{message} ({name})")
        extents = tuple(_extent(name, dimension) for dimension in written)
        if parameters[name] != "ndarray":
            _require(len(extents) == 1, f"[custom] shapes: {name} is a list: one dimension")
        declared = ndim.get(name, len(extents))
        _require(
            declared == len(extents) <= MAX_NDIM,
            f"[custom] shapes: {name} has {len(extents)} dimensions, but its ndim is {declared}",
        )
        shapes[name] = extents
    for name in raw:
        _known("shapes", name, parameters)
    return shapes


def _extent(name: str, written: Any) -> Extent:
    if type(written) is int and written >= 0:
        return Extent(None, written)
    found = _EXTENT.fullmatch(written) if isinstance(written, str) else None
    _require(
        found is not None,
        f"[custom] shapes: {name}: {written!r} is not a dimension (a name such as V, a name plus "
        'or minus a whole number such as "gamma + 1", or a whole number)',
    )
    assert found is not None
    if found["fixed"] is not None:
        return Extent(None, int(found["fixed"]))
    offset = int(found["offset"] or 0)
    return Extent(found["size"], -offset if found["sign"] == "-" else offset)


def _indices(
    raw: Any, parameters: dict[str, str], whole: set[str], shapes: Mapping[str, tuple[Extent, ...]]
) -> dict[str, str]:
    """``[custom] indices``: integer lists mapped to the size their entries index, e.g.
    ``{ draft = "V" }``: every entry from 0 to V - 1 (a token id of p's columns)."""
    message = (
        "[custom] indices maps list parameters of integers ([custom] items int, or a types of "
        "list[int]) to the name of a size in [custom] shapes"
    )
    _require(isinstance(raw, dict), message)
    sizes = {extent.size for extents in shapes.values() for extent in extents}
    for name, size in raw.items():
        _known("indices", name, parameters)
        _require(name in whole, f"{message}; {name!r} is not one")
        _require(
            isinstance(size, str) and size in sizes,
            f"[custom] indices: {name}: {size!r} is not a size of [custom] shapes"
            + (f" (they are {', '.join(sorted(s for s in sizes if s))})" if sizes - {None} else ""),
        )
    return dict(raw)


def _support(
    raw: Any, parameters: dict[str, str], whole: set[str], ndim: Mapping[str, int]
) -> dict[str, str]:
    """``[custom] support``: integer lists mapped to the 2-D array whose row i each entry i was
    drawn from, e.g. ``{ draft = "q" }``: a drafted token has probability above 0 in its row."""
    message = (
        "[custom] support maps list parameters of integers to a 2-dimensional ndarray parameter "
        "(its ndim or shapes declared) whose row i gives entry i a probability above 0"
    )
    _require(isinstance(raw, dict), message)
    for name, rows in raw.items():
        _known("support", name, parameters)
        _require(name in whole, f"{message}; {name!r} is not a list of integers")
        _require(
            isinstance(rows, str) and parameters.get(rows) == "ndarray" and ndim.get(rows) == 2,
            f"{message}; {rows!r} is not one",
        )
    return dict(raw)


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
