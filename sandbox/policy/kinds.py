"""How the numpy rules look at a value cheaply and truthfully: by its exact type, and by the
dtype numpy itself sees.

An instance of one of ``PLAIN_TYPES`` (the exact type, never a subclass: learner classes cannot
derive from numbers, strings or numpy's scalars, see ``classes``) holds no Python objects and no
structured bytes, so neither ``object_arrays`` nor ``memory`` could refuse it: their fast paths
skip it. numpy's numeric scalar types are listed because each has one fixed dtype; the flexible
ones (``np.void``, ``np.str_``, ``np.bytes_``) are not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# numpy's boolean, integer, floating and complex scalar types (each has a single dtype).
NUMERIC_SCALARS = frozenset(np.dtype(code).type for code in "?bBhHiIlLqQpPefdgFDG")

# Plus Python's numbers and strings, None, slices and classes (``dtype=float`` is an operand).
PLAIN_TYPES = frozenset(
    {type(None), bool, int, float, complex, str, bytes, slice, type(Ellipsis), type}
    | NUMERIC_SCALARS
)

# numpy's built-in numeric dtypes, by identity (numpy keeps one of each, and so does this set:
# no other live object has their ids). An exact np.ndarray with one of them holds numbers.
NUMERIC_DTYPE_IDS = frozenset(id(np.dtype(kind)) for kind in NUMERIC_SCALARS)


def plain(value: Any) -> bool:
    """Whether neither numpy rule could refuse ``value``, told from its exact type (and, for
    numpy's own array class, its dtype) alone: a number, a string, a numeric np.ndarray..."""
    kind = type(value)
    return kind in PLAIN_TYPES or (kind is np.ndarray and id(value.dtype) in NUMERIC_DTYPE_IDS)


# numpy's own dtype getters. A learner's subclass of np.ndarray may define a class attribute
# ``dtype`` (a plain name): ``value.dtype`` would then say float64 of an array of objects.
_ARRAY_DTYPE = np.ndarray.__dict__["dtype"].__get__
_SCALAR_DTYPE = np.generic.__dict__["dtype"].__get__


def numpy_dtype(value: Any) -> np.dtype[Any] | None:
    """The dtype numpy itself uses for ``value``, whatever its class says; None if ``value`` is
    neither an array nor a numpy scalar (by its real type: numpy's C code ignores __class__)."""
    kind = type(value)
    if issubclass(kind, np.ndarray):
        return _ARRAY_DTYPE(value)  # type: ignore[no-any-return]
    if issubclass(kind, np.generic):
        return _SCALAR_DTYPE(value)  # type: ignore[no-any-return]
    return None
