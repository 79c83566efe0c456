"""How close a returned float must be to the reference's, and how far off it is, in words.

An exercise declares its tolerance in ``exercise.toml`` (``[compare] rel_tol``, ``abs_tol``);
without one, floats must equal the reference's exactly. Ints are always compared exactly.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

# Non-finite floats cross the sandbox boundary as these strings (JSON has no NaN or infinity).
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


@dataclass(frozen=True)
class Tolerance:
    """A float passes when ``|actual - expected| <= max(abs_tol, rel_tol * |expected|)``.

    The bound is relative to the reference's value (not symmetric like ``math.isclose``), so
    the message can say plainly what was allowed around the number the learner sees.
    """

    rel_tol: float = 0.0
    abs_tol: float = 0.0

    def __post_init__(self) -> None:
        for name in ("rel_tol", "abs_tol"):
            value = getattr(self, name)
            if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        if self.rel_tol >= 1:
            raise ValueError(f"rel_tol must be below 1, got {self.rel_tol!r}")

    @property
    def exact(self) -> bool:
        return self.rel_tol == 0 and self.abs_tol == 0

    def allows(self, actual: float, expected: float) -> bool:
        if actual == expected or (math.isnan(actual) and math.isnan(expected)):
            return True  # equal infinities, and nan where the reference says nan
        if not (math.isfinite(actual) and math.isfinite(expected)):
            return False
        return abs(actual - expected) <= max(self.abs_tol, self.rel_tol * abs(expected))

    def describe(self, expected: float) -> str:
        """The bound that applies around ``expected``: '1e-9 relative' or '1e-12 absolute'."""
        if self.exact:
            return "floats must match the reference exactly"
        relative = self.rel_tol * abs(expected) if math.isfinite(expected) else 0.0
        if self.rel_tol > 0 and relative >= self.abs_tol:
            return f"the tolerance is {short_number(self.rel_tol)} relative"
        return f"the tolerance is {short_number(self.abs_tol)} absolute"


EXACT = Tolerance()


def as_number(value: Any) -> float | int | None:
    """A plain value as a number for comparison (bools are not numbers here), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and value in NON_FINITE:
        return NON_FINITE[value]
    return None


def short_number(value: float) -> str:
    """1e-09 -> '1e-9', 0.00090001 -> '9e-4': a tolerance or an error in few characters."""
    return _EXPONENT.sub(r"e\1\2", f"{value:.3g}")


def error_size(value: float) -> str:
    """An error in two or three significant digits: 9.0e-4, 2.9e-17, 0.25, 12.5."""
    if value == 0:
        return "0"
    if 0.1 <= abs(value) < 1e4:
        return f"{value:.3g}"
    return _EXPONENT.sub(r"e\1\2", f"{value:.1e}")


_EXPONENT = re.compile(r"e([+-])0*(\d)")


def _show(value: float) -> str:
    if math.isnan(value):
        return "nan (not a number)"
    return repr(value) if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def float_mismatch(actual: float, expected: float, tolerance: Tolerance) -> str:
    """'you returned 3.0912, the reference 3.0921 (off by 9.0e-4, relative 2.9e-4; ...)'."""
    said = f"you returned {_show(actual)}, the reference {_show(expected)}"
    if not (math.isfinite(actual) and math.isfinite(expected)):
        return said  # no distance to speak of
    off = abs(actual - expected)
    relative = f", relative {error_size(off / abs(expected))}" if expected != 0 else ""
    return f"{said} (off by {error_size(off)}{relative}; {tolerance.describe(expected)})"
