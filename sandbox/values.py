"""Inside the child: fresh copies of case inputs in, JSON-safe tagged values out.

A returned value is described by exact type (``type(x) is list``, never ``isinstance``), so a
subclass with a lying ``__eq__`` or an ndarray subclass is reported as what it is. Nothing the
learner returns is compared here: the trusted side does that from the tags.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from sandbox.limits import SNAPSHOT_ITEMS, SNAPSHOT_TEXT

MAX_ITEMS = 10_000
MAX_DEPTH = 32
MAX_TEXT = SNAPSHOT_TEXT
MAX_INT_BITS = 256


class TooBig(Exception):
    pass


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except BaseException as exc:  # a learner __repr__ may raise anything, SystemExit included
        text = f"<unprintable {type(exc).__name__}>"
    if not isinstance(text, str):
        return "<unprintable>"
    return text if len(text) <= 200 else text[:200] + "..."


def tag(value: Any) -> dict[str, Any]:
    """Describe a value as JSON with its exact type; raises nothing (falls back to 'object')."""
    budget = [MAX_ITEMS]
    try:
        return _tag(value, 0, budget)
    except TooBig:
        return {"t": "too_big", "type": type(value).__name__}
    except RecursionError:
        return {"t": "too_big", "type": type(value).__name__}


def _tag(value: Any, depth: int, budget: list[int]) -> dict[str, Any]:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise TooBig
    kind = type(value)
    if value is None:
        return {"t": "none"}
    if kind is bool:
        return {"t": "bool", "v": value}
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            return {"t": "int", "v": None, "big": True}
        return {"t": "int", "v": value}
    if kind is float:
        return {"t": "float", "v": _float(value)}
    if kind is str:
        return {"t": "str", "v": value[:MAX_TEXT]}
    if kind is list or kind is tuple:
        items = [_tag(item, depth + 1, budget) for item in value]
        return {"t": "list" if kind is list else "tuple", "v": items}
    if kind is dict:
        pairs = [[_tag(k, depth + 1, budget), _tag(v, depth + 1, budget)] for k, v in value.items()]
        return {"t": "dict", "v": pairs}
    if kind is np.ndarray:
        if value.size > MAX_ITEMS:
            raise TooBig
        budget[0] -= int(value.size)
        plain = _plain_array(value)
        return {"t": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "v": plain}
    if isinstance(value, np.generic) and kind.__module__ == "numpy":
        return {"t": "numpy", "dtype": str(value.dtype), "v": _plain_scalar(value)}
    return {"t": "object", "type": kind.__qualname__[:100], "repr": _short_repr(value)}


def _plain_scalar(value: np.generic) -> Any:
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return _float(float(value))
    return _short_repr(value)


def _plain_array(array: np.ndarray) -> Any:
    if array.dtype.kind in "biuf":
        listed = array.tolist()
        if array.dtype.kind == "f":
            return _clean_floats(listed)
        return listed
    return [_short_repr(item) for item in array.ravel()[:100]]


def _clean_floats(listed: Any) -> Any:
    if isinstance(listed, list):
        return [_clean_floats(item) for item in listed]
    return _float(listed)


# -- inputs -------------------------------------------------------------------------------


class RandomStreamExhausted(Exception):
    """The learner drew more random numbers than a scripted case provides.

    Carries data, not a sentence: the trusted side words it (app/grading/compare.py).
    """

    def __init__(self, provided: int, asked: int) -> None:
        super().__init__(f"scripted stream exhausted: {provided} numbers, number {asked} asked")
        self.provided = provided
        self.asked = asked


# How many of the values a generator handed out are kept, to show the learner their own draws.
RECORDED_DRAWS = 64


def _recorded(record: list[float | None], drawn: Any) -> None:
    room = RECORDED_DRAWS - len(record)
    if room <= 0:
        return
    items = drawn.ravel()[:room].tolist() if isinstance(drawn, np.ndarray) else [drawn]
    # uniform() with infinite bounds can hand out inf or nan; JSON has no word for those.
    record.extend(float(x) if math.isfinite(x) else None for x in items)


# What a generator's bounds and sizes may be: plain numbers and numeric arrays, checked before
# numpy sees them. numpy's own Generator would otherwise take whatever learner code passes: an
# object array, or an object whose __float__ / __index__ numpy then calls from C.
#
PLAIN_NUMBERS = frozenset({bool, int, float} | {np.dtype(c).type for c in "?bBhHiIlLqQefdg"})
PLAIN_INTEGERS = frozenset({int} | {np.dtype(c).type for c in "bBhHiIlLqQ"})


def _plain_bound(value: Any, name: str) -> Any:
    if type(value) in PLAIN_NUMBERS:
        return value
    if type(value) is np.ndarray and value.dtype.kind in "biuf":
        return value
    if type(value) in (list, tuple) and all(type(x) in PLAIN_NUMBERS for x in value):
        return value
    raise TypeError(
        f"{name} must be a number, a list of numbers or a numeric array, not "
        f"{type(value).__name__}"
        + (" holding other things" if type(value) in (list, tuple) else "")
    )


def _plain_size(size: Any) -> Any:
    if size is None or type(size) in PLAIN_INTEGERS:
        return size
    if type(size) in (tuple, list) and all(type(n) in PLAIN_INTEGERS for n in size):
        return size
    raise TypeError(f"size must be None, an int or a tuple of ints, not {type(size).__name__}")


class ScriptedGenerator:
    """A stand-in generator that returns the case's numbers in order and counts the draws."""

    __slots__ = ("_numbers", "_drawn", "_record")

    def __init__(self, numbers: list[float]) -> None:
        self._numbers = [float(n) for n in numbers]
        self._drawn = 0
        self._record: list[float | None] = []

    def _next(self) -> float:
        if self._drawn >= len(self._numbers):
            self._drawn += 1
            raise RandomStreamExhausted(len(self._numbers), self._drawn)
        number = self._numbers[self._drawn]
        self._drawn += 1
        return number

    def _many(self, size: Any) -> Any:
        if size is None:
            return self._next()
        _plain_size(size)
        shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
        if any(int(length) < 0 for length in shape):
            raise ValueError("negative dimensions are not allowed")  # as numpy says
        count = int(np.prod(shape))
        return np.array([self._next() for _ in range(count)]).reshape(shape)

    def _handed(self, drawn: Any) -> Any:
        _recorded(self._record, drawn)
        return drawn

    def random(self, size: Any = None, dtype: Any = None, out: Any = None) -> Any:
        # numpy's float32 draw is another number than the float64 one the case scripts, and
        # ``out`` would be left unwritten: refused, rather than answered as if they were not there.
        if dtype is not None and np.dtype(dtype) != np.float64:
            raise TypeError(
                "the judge's scripted generator draws float64 numbers only: call rng.random() "
                f"without dtype={np.dtype(dtype).name}"
            )
        if out is not None:
            raise TypeError("the judge's scripted generator does not fill out=: use its result")
        return self._handed(self._many(size))

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> Any:
        low, high = _plain_bound(low, "low"), _plain_bound(high, "high")
        return self._handed(low + (high - low) * self._many(size))

    @property
    def draws(self) -> int:
        return self._drawn

    @property
    def drawn_values(self) -> list[float | None]:
        """The first RECORDED_DRAWS values handed out, as the learner received them."""
        return list(self._record)

    def __repr__(self) -> str:
        return f"ScriptedGenerator({len(self._numbers)} numbers)"


class CountingGenerator:
    """numpy's default_rng(seed) behind a narrow surface that counts every number drawn."""

    __slots__ = ("_generator", "_drawn", "_record")

    def __init__(self, seed: int) -> None:
        self._generator = np.random.default_rng(seed)
        self._drawn = 0
        self._record: list[float | None] = []

    def _counted(self, drawn: Any) -> Any:
        # Count what numpy returned, not what ``size`` says: a size numpy refuses (negative)
        # draws nothing, and must not move the count either way.
        self._drawn += drawn.size if isinstance(drawn, np.ndarray) else 1
        _recorded(self._record, drawn)
        return drawn

    def random(self, size: Any = None, dtype: Any = np.float64, out: Any = None) -> Any:
        if size is None:
            # One number, the step's usual draw (thousands in a distribution check): counted
            # and recorded as ``_counted`` would, without its checks for an array.
            drawn = self._generator.random()
            self._drawn += 1
            if len(self._record) < RECORDED_DRAWS:
                self._record.append(drawn)  # in [0, 1): always finite
            return drawn
        return self._counted(self._generator.random(_plain_size(size)))

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None) -> Any:
        low, high = _plain_bound(low, "low"), _plain_bound(high, "high")
        return self._counted(self._generator.uniform(low, high, _plain_size(size)))

    @property
    def draws(self) -> int:
        return self._drawn

    @property
    def drawn_values(self) -> list[float | None]:
        """The first RECORDED_DRAWS values handed out, as the learner received them."""
        return list(self._record)

    def __repr__(self) -> str:
        return "Generator(PCG64)"


# An ndarray input as a job document carries it: its float64 bytes (base64) and its shape, as
# ``packed_array`` made them of the case's nested lists on the host. In the machine's own byte
# order: the host and its children are one machine.
PACKED = "f8"


def packed_array(raw: Any) -> Any:
    """An ndarray parameter's input for the job document: the array the child would build of
    ``raw``, as its bytes and shape (``raw`` itself when numpy cannot build it, or it is
    spelled as a dict). Reading 17-digit floats from JSON was half of what a Submit job spent
    building its arguments (docs/performance.md); the bytes give the very same numbers."""
    if type(raw) is not list:
        return raw
    try:
        array = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):  # the child reports it, as it always did
        return raw
    return {PACKED: base64.b64encode(array.tobytes()).decode("ascii"), "shape": list(array.shape)}


def _unpacked(raw: Mapping[str, Any]) -> np.ndarray:
    shape = raw["shape"]
    if type(shape) is not list or not all(type(length) is int and length >= 0 for length in shape):
        raise ValueError("a packed array needs a shape of non-negative ints")
    text = raw[PACKED]
    if type(text) is not str:
        raise ValueError("a packed array's bytes must be base64 text")
    try:
        data = binascii.a2b_base64(text, strict_mode=True)
    except binascii.Error as exc:
        raise ValueError(f"a packed array's bytes do not decode: {exc}") from None
    # A copy that owns its data, as np.array's did (no base for learner code to find; over the
    # bytes themselves it would be read-only). reshape raises ValueError when the shape does
    # not hold that many numbers.
    return np.frombuffer(data, dtype=np.float64).reshape(shape).copy()


def build_argument(kind: str, raw: Any) -> Any:
    """A fresh object for one parameter of one case, built from its JSON input."""
    if kind == "ndarray":
        if isinstance(raw, dict) and "empty" in raw:
            # JSON cannot spell an empty array's shape: (0, V) is written {"empty": [0, V]}.
            return np.empty(raw["empty"], dtype=np.float64)
        if isinstance(raw, dict) and PACKED in raw:
            return _unpacked(raw)
        return np.array(raw, dtype=np.float64)
    if kind == "rng":
        if isinstance(raw, dict) and "scripted" in raw:
            return ScriptedGenerator(raw["scripted"])
        if isinstance(raw, dict) and "seed" in raw:
            return CountingGenerator(int(raw["seed"]))
        raise ValueError(f"unknown generator spec {raw!r}")
    # "list" and "value": a deep copy through JSON types, so no two calls share an object.
    return _copy(raw)


def _copy(raw: Any) -> Any:
    if isinstance(raw, list):
        return [_copy(item) for item in raw]
    if isinstance(raw, dict):
        return {key: _copy(item) for key, item in raw.items()}
    return raw


# Arrays up to this many numbers keep a copy of their bytes from before the call (at most
# 32 KiB each, held while learner code runs); larger ones are compared with a rebuilt input.
PRISTINE_ITEMS = 4096


def pristine(kinds: Mapping[str, str], arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The state of each small ndarray argument as built, for ``as_built`` after the call: its
    shape and bytes (a copy costs a fraction of rebuilding the input to compare it)."""
    return {
        name: (value.shape, value.tobytes())
        for name, kind in kinds.items()
        if kind == "ndarray"
        and type(value := arguments[name]) is np.ndarray
        and value.size <= PRISTINE_ITEMS
    }


def snapshot_arguments(
    kinds: dict[str, str],
    arguments: dict[str, Any],
    inputs: Mapping[str, Any] | None = None,
    built: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The state of the mutable arguments after the call, as JSON, for the mutation check.

    With ``inputs`` (the case's JSON), an argument still exactly as it was built from its
    input is left out: the host's check has nothing to compare for it, and sending the whole
    input back was most of a case's reply (a quarter of a Submit's time in the child). All of
    them together hold at most SNAPSHOT_ITEMS values; one that does not fit in what is left
    comes back as ``{"t": "too_big"}``, which the trusted side never takes for an input.
    ``built`` holds what ``pristine`` recorded before the call, if anything.
    """
    budget = [SNAPSHOT_ITEMS]
    states = {} if built is None else built
    return {
        name: _snapshot(kind, arguments[name], budget)
        for name, kind in kinds.items()
        if kind in ("list", "ndarray", "value")
        and (
            inputs is None
            or name not in inputs
            or not as_built(kind, arguments[name], inputs[name], states.get(name))
        )
    }


def as_built(kind: str, value: Any, raw: Any, built: Any = None) -> bool:
    """Whether an argument is exactly what ``build_argument(kind, raw)`` made of its input
    (``built``: its shape and bytes as ``pristine`` recorded them, a shortcut for an array).

    By exact type at every level, never by the value's own ``==``: an element swapped for an
    object that claims equality is a change (the host then sees it in the snapshot)."""
    try:
        if kind == "ndarray":
            if type(value) is not np.ndarray or value.dtype != np.float64:
                return False
            if built is not None and value.shape == built[0] and value.tobytes() == built[1]:
                return True  # bit for bit as built; otherwise compare values, as numpy does
            if isinstance(raw, dict) and "empty" in raw:
                return bool(value.shape == tuple(raw["empty"]))
            built = build_argument(kind, raw)
            return value.shape == built.shape and bool(np.array_equal(value, built))
        return _same_data(value, raw)
    except Exception:  # an input numpy cannot compare: send the snapshot, as before
        return False


def _same_data(value: Any, raw: Any) -> bool:
    kind = type(raw)
    if type(value) is not kind:
        return False
    if kind is list:
        return len(value) == len(raw) and all(map(_same_data, value, raw))
    if kind is dict:
        return value.keys() == raw.keys() and all(_same_data(value[k], raw[k]) for k in raw)
    return bool(value == raw)  # JSON scalars of one exact built-in type: their own ==


def _snapshot(kind: str, value: Any, budget: list[int]) -> Any:
    left = budget[0]
    try:
        if kind == "ndarray" and type(value) is np.ndarray:
            budget[0] -= int(value.size) + 1
            if budget[0] < 0:
                raise TooBig
            return _clean_floats(value.tolist())
        return _tag(value, 0, budget)
    except (TooBig, RecursionError):
        budget[0] = left  # what did not fit costs nothing: a later, smaller argument may
        return {"t": "too_big", "type": type(value).__name__}


def json_data(value: Any) -> Any:
    """Trusted code's result as plain JSON: numpy numbers made Python ones, sizes capped."""
    budget = [MAX_ITEMS]
    return _json_data(value, 0, budget)


def _json_data(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise TooBig("trace too large")
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, (float, np.floating)):
        return _float(float(value))
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray):
        return _json_data(value.tolist(), depth + 1, budget)
    if type(value) in (list, tuple):
        return [_json_data(item, depth + 1, budget) for item in value]
    if type(value) is dict:
        return {str(k): _json_data(v, depth + 1, budget) for k, v in value.items()}
    raise TypeError(f"not JSON data: {type(value).__name__}")
