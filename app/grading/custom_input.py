"""A learner's own input, checked against the exercise's parameter kinds before anything runs.

Every problem names the parameter, so the 422 says which field to fix. What passes is plain
JSON data of bounded size that the sandbox turns into arguments exactly as it does stored cases.
"""

from __future__ import annotations

import math
from typing import Any

from app.catalog import Exercise
from app.grading.custom_caps import MAX_NDIM, Bounds, InputCaps, ScalarRange
from app.grading.custom_values import (
    BadInput,
    Budget,
    check_text,
    integral_typed,
    kind_of,
    number,
    typed,
)
from app.schemas import MAX_SEED, SEED_RANGE, integral

__all__ = ["CUSTOM_CASE_NAME", "BadInput", "ordered", "validate"]

CUSTOM_CASE_NAME = "your input"  # the one test a custom run's report holds
ROW_SUM_TOLERANCE = 1e-6


def _any_value(value: Any, name: str, budget: Budget, depth: int = 0) -> None:
    """A ``value`` parameter: any JSON, every number finite, sizes bounded."""
    if depth > 8:
        raise BadInput(f"input.{name}: nested too deeply")
    if isinstance(value, list):
        budget.length(value, name)
        for position, item in enumerate(value):
            _any_value(item, f"{name}[{position}]", budget, depth + 1)
    elif isinstance(value, dict):
        budget.length(list(value), name)
        budget.spend(len(value), name)  # the sandbox's snapshot holds a key and a value each
        for key, item in value.items():
            check_text(key, f"{name} (a key)")
            _any_value(item, f"{name}.{key}", budget, depth + 1)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        number(value, name)
    elif isinstance(value, str):
        check_text(value, name)


def _list(value: Any, name: str, budget: Budget, item_type: str | None) -> None:
    if not isinstance(value, list):
        raise BadInput(f"input.{name}: expected a list, got {kind_of(value)}")
    budget.length(value, name)
    for position, item in enumerate(value):
        where = f"{name}[{position}]"
        if item_type is None:
            _any_value(item, where, budget, 1)
        else:
            number(item, where, item_type)


def _array(value: Any, name: str, budget: Budget, ndim: int = MAX_NDIM) -> list[int]:
    """A rectangular nested list of finite numbers, at most ``ndim`` deep; returns its shape."""
    if not isinstance(value, list):
        raise BadInput(f"input.{name}: expected a (nested) list of numbers, got {kind_of(value)}")
    budget.length(value, name)
    if not value:
        return [0]
    if all(isinstance(item, list) for item in value):
        if ndim <= 1:  # checked on the way down, so a 3000-deep list costs no recursion
            raise BadInput(f"input.{name}: nested deeper than the array's dimensions allow")
        shapes = [_array(item, f"{name}[{i}]", budget, ndim - 1) for i, item in enumerate(value)]
        if any(shape != shapes[0] for shape in shapes):
            raise BadInput(f"input.{name}: ragged array: its rows differ in length")
        return [len(value), *shapes[0]]
    for position, item in enumerate(value):
        if isinstance(item, list):
            raise BadInput(f"input.{name}: ragged array: mixes numbers and lists")
        number(item, f"{name}[{position}]")
    return [len(value)]


def _rank(shape: list[int], name: str, ndim: int | None) -> None:
    """An array of the declared number of dimensions (``[custom] ndim``); an empty one's depth
    cannot be seen in JSON, so it is spelt ``{"empty": [0, V]}``."""
    if ndim is None or len(shape) == ndim or 0 in shape:
        return
    raise BadInput(
        f"input.{name}: expected a {ndim}-dimensional array, got {len(shape)} dimension"
        + ("s" if len(shape) != 1 else "")
        + f" (shape {shape})"
    )


def _empty(value: dict[str, Any], name: str, ndim: int | None) -> None:
    shape = value.get("empty")
    if (
        set(value) != {"empty"}
        or not isinstance(shape, list)
        or not 1 <= len(shape) <= 2
        or (ndim is not None and len(shape) != ndim)
        or not all(type(n) is int and n >= 0 for n in shape)
        or 0 not in shape
        or max(shape) > 1000
    ):
        raise BadInput(
            f'input.{name}: expected a (nested) list of numbers, or {{"empty": [0, V]}} '
            "for an array with no rows"
        )


def _off_entry(numbers: list[Any], above: float) -> tuple[int, str] | None:
    """The first entry that keeps ``numbers`` from being a probability distribution, and why.

    A negative entry first: it is the mistake behind a row such as [2.0, -1.0]. One above
    ``above`` is found before anyone sums the entries, so that fsum never overflows (1e308
    twice)."""
    for wrong, says in ((lambda x: x < 0, "is negative"), (lambda x: x > above, "is above 1")):
        position = next((i for i, x in enumerate(numbers) if wrong(x)), None)
        if position is not None:
            return position, says
    return None


def _rows(value: list[Any], name: str) -> None:
    """``[custom] distributions``: every row of an (already checked) array is a probability
    distribution within ROW_SUM_TOLERANCE, as ``probabilities`` asks of a list; the first entry
    or row that is not is named."""
    if not value:
        return  # no rows (q when the draft is empty), so no row to fault
    matrix = isinstance(value[0], list)
    rows = value if matrix else [value]
    for index, row in enumerate(rows):
        if any(isinstance(x, list) for x in row):
            return  # deeper than a matrix: nothing to say about rows
        at = f"{name}[{index}]" if matrix else name
        problem = _not_a_distribution(row, row, at, ROW_SUM_TOLERANCE)
        if problem:
            raise BadInput(
                f"input.{name}: row {index} is not a probability distribution: {problem}"
            )


def _nonempty(shape: list[int], name: str) -> None:
    """``[custom] nonempty``: a list or array that holds at least one item (every dimension)."""
    if 0 not in shape:
        return
    if len(shape) == 1:
        raise BadInput(f"input.{name}: an empty list; it needs at least one item")
    raise BadInput(
        f"input.{name}: an empty array (shape {shape}); every dimension needs at least one item"
    )


def _distribution(value: list[Any], name: str, tolerance: float) -> None:
    """``[custom] probabilities``: numbers >= 0 that add up to 1 within ``tolerance``."""
    lead = f"input.{name}: not a probability distribution"
    if not value:
        raise BadInput(f"{lead}: it is empty")
    numbers = [number(item, f"{name}[{i}]") for i, item in enumerate(value)]
    problem = _not_a_distribution(numbers, value, name, tolerance)
    if problem:
        raise BadInput(f"{lead}: {problem}")


def _not_a_distribution(
    numbers: list[Any], written: list[Any], at: str, tolerance: float
) -> str | None:
    """Why ``numbers`` (as ``written`` in the input, at ``at``) are no probability
    distribution: the first entry that keeps them from one, else their sum; None when they are."""
    off = _off_entry(numbers, above=1 + tolerance)
    if off is not None:
        position, says = off
        return f"{at}[{position}] = {written[position]!r} {says}"
    total = math.fsum(numbers)
    if abs(total - 1) > tolerance:
        return f"its entries add up to {total!r}, not 1 (within {tolerance:g})"
    return None


def _scalar(value: Any, name: str, allowed: ScalarRange) -> None:
    """One number of the declared type within its range (``[custom] scalars``)."""
    kind = "an integer" if allowed.type == "int" else "a number"
    low, high = (_bound(end, allowed.type) for end in (allowed.low, allowed.high))
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"input.{name}: expected {kind} from {low} to {high}, got {kind_of(value)}")
    given = number(value, name, allowed.type)
    if not allowed.low <= given <= allowed.high:
        raise BadInput(f"input.{name}: expected {kind} from {low} to {high}, got {value!r}")


def _bound(end: float, kind: str) -> str:
    return str(int(end)) if kind == "int" or float(end).is_integer() else repr(end)


def _rng(value: Any, name: str, budget: Budget) -> None:
    if not isinstance(value, dict) or len(value) != 1 or not {"seed", "scripted"} & set(value):
        raise BadInput(
            f'input.{name}: a generator is {{"seed": <integer>}} or '
            f'{{"scripted": [<numbers in [0, 1)>]}}'
        )
    if "seed" in value:
        seed = integral(value["seed"])
        if type(seed) is not int or not 0 <= seed <= MAX_SEED:
            raise BadInput(f"input.{name}.seed: must be {SEED_RANGE}")
        return
    scripted = value["scripted"]
    if not isinstance(scripted, list):
        raise BadInput(f"input.{name}.scripted: expected a list of numbers")
    budget.length(scripted, f"{name}.scripted")
    for position, item in enumerate(scripted):
        draw = number(item, f"{name}.scripted[{position}]")
        if not 0 <= draw < 1:
            raise BadInput(f"input.{name}.scripted[{position}]: {item!r} is not in [0, 1)")


def validate(exercise: Exercise, raw: Any) -> None:
    """Check a custom input; raises BadInput naming the parameter (and the entry, where one is
    at fault)."""
    if not isinstance(raw, dict):
        raise BadInput(f"input: expected an object keyed by parameter, got {kind_of(raw)}")
    missing = [name for name in exercise.parameters if name not in raw]
    if missing:
        raise BadInput(
            f"input.{missing[0]}: missing (the parameters are {list(exercise.parameters)})"
        )
    extra = [name for name in raw if name not in exercise.parameters]
    if extra:
        raise BadInput(f"input.{extra[0]}: not a parameter of {exercise.entry_point}")
    caps = exercise.input_caps
    budget = Budget(caps)
    distributions: list[str] = []
    for name, kind in exercise.parameters.items():
        value = raw[name]
        if kind != "rng":
            budget.spend(1, name)  # the argument itself, as the sandbox's snapshot counts it
        if kind == "rng":
            _rng(value, name, budget)
        elif kind == "list":
            _list(value, name, budget, caps.item_types.get(name))
            if name in caps.probabilities:
                _distribution(value, name, caps.probabilities[name])
            if name in caps.nonempty:
                _nonempty([len(value)], name)
        elif kind == "ndarray" and isinstance(value, dict):
            _empty(value, name, caps.ndim.get(name))
            if name in caps.nonempty:
                _nonempty(value["empty"], name)
        elif kind == "ndarray":
            shape = _array(value, name, budget, caps.ndim.get(name, MAX_NDIM))
            _rank(shape, name, caps.ndim.get(name))
            if name in caps.nonempty:
                _nonempty(shape, name)
            if name in caps.distributions:
                distributions.append(name)  # after the shapes: a row of the wrong length first
        elif name in caps.scalars:
            _scalar(value, name, caps.scalars[name])
        elif name in caps.types:
            typed(value, caps.types[name], name, budget)
            if name in caps.nonempty:
                _nonempty([len(value)], name)
        else:
            _any_value(value, name, budget)
        if name in caps.bounds:
            _within(value, name, caps.bounds[name])
    for group in caps.same_length:
        _same_length(raw, group)
    sizes = _shapes(raw, caps)
    for name in distributions:
        _rows(raw[name], name)
    for name, size in caps.indices.items():
        _indices(raw[name], name, size, sizes)
    for name, rows in caps.support.items():
        _supported(raw[name], name, raw[rows], rows)


def _within(value: Any, name: str, bounds: Bounds) -> None:
    """``[custom] bounds``: every number of an (already checked) list, array or typed value in
    the closed range; the first one outside it is named, in reading order."""
    if isinstance(value, dict):
        return  # {"empty": [0, V]}: an array with no entries
    pending = [(name, value)]
    while pending:
        where, item = pending.pop()
        if isinstance(item, list):
            # Reversed onto the stack, so that the first entry in reading order comes out first.
            pending.extend((f"{where}[{i}]", entry) for i, entry in reversed(list(enumerate(item))))
        elif (bounds.low is not None and item < bounds.low) or (
            bounds.high is not None and item > bounds.high
        ):
            raise BadInput(f"input.{where}: expected a number {_range_words(bounds)}, got {item!r}")


def _range_words(bounds: Bounds) -> str:
    low, high = (None if end is None else _bound(end, "float") for end in (bounds.low, bounds.high))
    if high is None:
        return f">= {low}"
    if low is None:
        return f"<= {high}"
    return f"from {low} to {high}"


def _same_length(raw: dict[str, Any], group: tuple[str, ...]) -> None:
    """``[custom] same_length``: the (already checked) parameters hold as many items each, an
    array as many rows, because the function pairs them up item by item."""
    lengths = [_length(raw[name]) for name in group]
    for name, length in zip(group[1:], lengths[1:], strict=True):
        if length != lengths[0]:
            raise BadInput(
                f"input.{name}: {_items(length)}, but input.{group[0]} has {lengths[0]}; they "
                "pair up item by item, so they must be the same length"
            )


# A size's value and the words of where it was read, e.g. (3, "input.p's 4 rows are gamma + 1").
Sizes = dict[str, tuple[int, str]]


def _shapes(raw: dict[str, Any], caps: InputCaps) -> Sizes:
    """``[custom] shapes``: every dimension of the (already checked) parameters as declared; the
    first parameter to hold a named size fixes it, in call order, and a later one that differs
    is named beside the parameter that fixed it."""
    sizes: Sizes = {}
    for name, extents in caps.shapes.items():
        shape = _shape(raw[name])
        for axis, (extent, length) in enumerate(zip(extents, shape, strict=False)):
            words = _along(axis, len(extents), length)
            if extent.size is None:
                if length != extent.offset:
                    fixed = _along(axis, len(extents), extent.offset)
                    raise BadInput(f"input.{name}: {words}, but it needs {fixed}")
            elif extent.size in sizes:
                value, source = sizes[extent.size]
                due = value + extent.offset
                if length != due:
                    raise BadInput(
                        f"input.{name}: {words}, but {source}, so {name} needs {extent} = {due}"
                    )
            elif length - extent.offset < 0:
                raise BadInput(
                    f"input.{name}: {words}, but it needs {extent}: at least {extent.offset}"
                )
            else:
                is_ = "is" if length == 1 else "are"
                sizes[extent.size] = (
                    length - extent.offset,
                    f"input.{name}'s {words} {is_} {extent}",
                )
    return sizes


def _shape(value: Any) -> list[int]:
    """The dimensions an (already checked, rectangular) list or array shows: an empty one shows
    only its first, unless spelt ``{"empty": [0, V]}``."""
    if isinstance(value, dict):
        return [int(n) for n in value["empty"]]
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        if not value:
            break
        value = value[0]
    return shape


def _along(axis: int, rank: int, count: int) -> str:
    """``count`` entries along ``axis`` in words: 4 items, 3 rows, 1 column."""
    if rank == 1:
        noun = "item"
    elif rank == 2:
        noun = ("row", "column")[axis]
    else:
        return f"{count} along dimension {axis}"
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _indices(value: Any, name: str, size: str, sizes: Sizes) -> None:
    """``[custom] indices``: every entry of an (already checked) integer list from 0 to the
    size's value minus one; the first one outside is named, with where the size was read."""
    if size not in sizes:
        return  # the size is shown by no input (every list holding it is empty)
    count, source = sizes[size]
    for position, entry in enumerate(value):
        if not 0 <= entry < count:
            allowed = f"from 0 to {count - 1}" if count else "none (there is nothing to index)"
            raise BadInput(
                f"input.{name}[{position}]: expected an index of {size}, {allowed} ({source}), "
                f"got {entry!r}"
            )


def _supported(value: Any, name: str, rows: Any, rows_name: str) -> None:
    """``[custom] support``: entry i of an (already checked) integer list has a probability
    above 0 in row i of a 2-D array: what was drawn from a row could not be a token it rules
    out. Entries past the rows or a row's end are the other declarations' to name."""
    if isinstance(rows, dict):
        return  # {"empty": [0, V]}: no rows
    for position, (entry, row) in enumerate(zip(value, rows, strict=False)):
        token = int(entry)
        if 0 <= token < len(row) and not row[token] > 0:
            raise BadInput(
                f"input.{name}[{position}]: token {token} has probability {row[token]!r} in "
                f"input.{rows_name}[{position}], so it cannot have been drawn from that row"
            )


def _length(value: Any) -> int:
    if isinstance(value, dict):
        return int(value["empty"][0])  # an empty array's shape, e.g. {"empty": [0, 3]}
    return len(value)


def _items(count: int) -> str:
    return f"{count} item" + ("" if count == 1 else "s")


def ordered(exercise: Exercise, raw: dict[str, Any]) -> dict[str, Any]:
    """The (validated) input keyed in the parameters' call order (the order stored cases use),
    an integral number written with a fraction passed on as the integer it is where one is due
    (a generator's seed, an integer scalar, a list of integers, an int of a declared type)."""
    caps = exercise.input_caps
    inputs = {}
    for name, kind in exercise.parameters.items():
        value = raw[name]
        if kind == "rng" and "seed" in value:
            value = {"seed": integral(value["seed"])}
        elif kind == "list" and caps.item_types.get(name) == "int":
            value = [integral(item) for item in value]
        elif name in caps.scalars and caps.scalars[name].type == "int":
            value = integral(value)
        elif name in caps.types:
            value = integral_typed(value, caps.types[name])
        inputs[name] = value
    return inputs
