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

PLAIN_TYPES = frozenset(
    {type(None), bool, int, float, complex, str, bytes, slice, type(Ellipsis)} | NUMERIC_SCALARS
)

# numpy's own dtype getters. A learner's subclass of np.ndarray may define a class attribute
# ``dtype`` (a plain name): ``value.dtype`` would then say float64 of an array of objects.
_ARRAY_DTYPE = np.ndarray.__dict__["dtype"].__get__
_SCALAR_DTYPE = np.generic.__dict__["dtype"].__get__


def numpy_dtype(value: np.ndarray[Any, Any] | np.generic) -> np.dtype[Any]:
    """The dtype numpy itself uses for ``value`` (an array or a numpy scalar), whatever its
    class says."""
    if isinstance(value, np.ndarray):
        return _ARRAY_DTYPE(value)  # type: ignore[no-any-return]
    return _SCALAR_DTYPE(value)  # type: ignore[no-any-return]
