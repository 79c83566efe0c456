"""The pieces every check of a learner's own input is built of: a finite number, a text the
sandbox can show back, the budget of values an input may hold, and a ``value`` parameter
walked against its declared type (``[custom] types``).

Each problem is a BadInput whose sentence starts with the position in the input
(``input.beams[1][0]``), so that the learner knows which entry to fix.
"""

from __future__ import annotations

import math
from typing import Any

from app.errors import InvalidRequest
from app.grading.compare import TypeSpec
from app.grading.custom_caps import InputCaps
from app.schemas import INT64_MAX, INT64_RANGE, integral
from sandbox import SNAPSHOT_TEXT

# Integers of a custom input fit in 64 bits (schemas.INT64_MAX): a float conversion of a larger
# one overflows, and the sandbox snapshots arguments (for the mutation check) only up to a
# bounded size.


class BadInput(InvalidRequest):
    """A custom input that does not fit the exercise; ``detail`` names the parameter."""


def number(value: Any, name: str, want: str = "float") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BadInput(f"input.{name}: expected a number, got {kind_of(value)}")
    if want == "int":
        value = integral(value)  # 3.0 is the integer 3 in JSON; ordered() passes it on as 3
        if not isinstance(value, int):
            raise BadInput(f"input.{name}: expected an integer, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise BadInput(f"input.{name}: numbers must be finite, got {value!r}")
    if isinstance(value, int) and abs(value) > INT64_MAX:
        raise BadInput(
            f"input.{name}: integers must lie within {INT64_RANGE}; this one has "
            f"{len(str(abs(value)))} digits"
        )
    return float(value)


def kind_of(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), type(value).__name__)


def check_text(value: str, name: str) -> None:
    # HTTP's JSON parser refuses a lone surrogate ("\ud800"); Python's json (the CLI's) lets
    # it through, and no report holding it could be encoded.
    if any("\ud800" <= char <= "\udfff" for char in value):
        raise BadInput(f"input.{name}: the text holds a lone surrogate (not valid Unicode)")
    if len(value) > SNAPSHOT_TEXT:  # longer, the sandbox could not show it back whole
        raise BadInput(
            f"input.{name}: {len(value)} characters; at most {SNAPSHOT_TEXT} are allowed"
        )


class Budget:
    """Counts every number of one input against ``max_elements``."""

    def __init__(self, caps: InputCaps) -> None:
        self.caps = caps
        self.left = caps.max_elements

    def spend(self, count: int, name: str) -> None:
        self.left -= count
        if self.left < 0:
            raise BadInput(
                f"input.{name}: the input holds more than {self.caps.max_elements} values in all"
            )

    def length(self, items: list[Any], name: str) -> None:
        if len(items) > self.caps.max_length:
            raise BadInput(
                f"input.{name}: {len(items)} items; at most {self.caps.max_length} are allowed"
            )
        self.spend(len(items), name)


_EXPECTED = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string"}


def typed(value: Any, spec: TypeSpec, name: str, budget: Budget) -> None:
    """``value`` is of the declared type ``spec``: a JSON list stands for a list or a tuple (of
    exactly as many items), a bool is neither an int nor a float, an int is a float. The walk
    follows the type, so an input nested deeper than it is refused where it departs."""
    if spec.name in ("list", "tuple"):
        want = f"a list ({spec})" if spec.name == "list" else _tuple_words(spec)
        if not isinstance(value, list):
            raise BadInput(f"input.{name}: expected {want}, got {_shown(value)}")
        if spec.name == "tuple" and len(value) != len(spec.items):
            got = f"{len(value)} item" + ("" if len(value) == 1 else "s")
            raise BadInput(f"input.{name}: expected {want}, got {got}")
        budget.length(value, name)
        for position, item in enumerate(value):
            item_spec = spec.items[0] if spec.name == "list" else spec.items[position]
            typed(item, item_spec, f"{name}[{position}]", budget)
        return
    expected = _EXPECTED[spec.name]
    if spec.name == "bool" and not isinstance(value, bool):
        raise BadInput(f"input.{name}: expected {expected}, got {_shown(value)}")
    if spec.name == "str":
        if not isinstance(value, str):
            raise BadInput(f"input.{name}: expected {expected}, got {_shown(value)}")
        check_text(value, name)
    if spec.name in ("int", "float"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadInput(f"input.{name}: expected {expected}, got {_shown(value)}")
        number(value, name, spec.name)


def _tuple_words(spec: TypeSpec) -> str:
    return f"a list of {len(spec.items)} items ({spec})"


def _shown(value: Any) -> str:
    """What a learner gave where something else was due: a kind of value, or the number itself
    when its type was the mistake (``got 1.5`` where an integer is due). An integer past 64 bits
    is told by its length: written out, 4000 digits would be the whole message."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT64_MAX:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return kind_of(value)


def integral_typed(value: Any, spec: TypeSpec) -> Any:
    """A validated ``value`` whose integers written with a fraction (3.0) are passed on as the
    integers they are, where the declared type wants an int."""
    if spec.name == "int":
        return integral(value)
    if spec.name == "list":
        return [integral_typed(item, spec.items[0]) for item in value]
    if spec.name == "tuple":
        return [
            integral_typed(item, item_spec)
            for item, item_spec in zip(value, spec.items, strict=True)
        ]
    return value
