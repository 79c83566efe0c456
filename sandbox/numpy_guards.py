"""numpy operations that learner code may not apply to arrays of Python objects.

numpy's sorts, partitions, searches and min/max/arg-reductions keep borrowed pointers into an
object array while they call the elements' comparison methods. A learner ``__lt__`` that
reassigns the array's items during the call frees objects numpy still points at (a use after
free: a crash, or a freed object read as another). Elementwise operations and Python's own
``sorted``/``max`` hold real references and stay allowed, as do numeric arrays of every kind.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

# numpy functions (the learner's np.*) that order the elements of an array argument in place
# of a copy, or reduce over them keeping a borrowed "best so far" (directly, or inside: the
# histogram functions take the min and max of their input, digitize checks its bins are sorted,
# pad's 'maximum'/'median' modes reduce over the edges).
ORDERING_FUNCTIONS = frozenset(
    """
    argsort argpartition partition argmax argmin max min amax amin nanmax nanmin nanargmax
    nanargmin median nanmedian percentile quantile nanpercentile nanquantile searchsorted ptp
    lexsort histogram histogram2d histogram_bin_edges digitize pad
    """.split()
)
# The same operations as ndarray methods.
ORDERING_METHODS = frozenset(
    "sort argsort partition argpartition max min argmax argmin ptp searchsorted".split()
)
# ufunc methods that reduce or scatter over an operand (np.maximum.reduce(a), ...).
UFUNC_METHODS = frozenset("reduce accumulate reduceat at outer".split())


class ObjectArrayRefused(Exception):
    """Raised to learner code; the message says what to do instead."""


def _holds_objects(value: Any) -> bool:
    return isinstance(value, np.ndarray) and value.dtype.hasobject


def _refuse(what: str) -> None:
    raise ObjectArrayRefused(
        f"{what} on an array of Python objects is not available in the judge; use a numeric "
        "array, or Python's sorted()/max()/min() on a list"
    )


def refusing_object_arrays(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function``, refusing to run when an argument is an array of Python objects."""

    @functools.wraps(function, assigned=("__name__", "__qualname__", "__doc__"), updated=())
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if any(_holds_objects(value) for value in (*args, *kwargs.values())):
            _refuse(what)
        return function(*args, **kwargs)

    return guarded


def guard_surface(members: dict[str, Any]) -> dict[str, Any]:
    """The numpy surface with its ordering functions guarded."""
    return {
        name: refusing_object_arrays(value, f"np.{name}") if name in ORDERING_FUNCTIONS else value
        for name, value in members.items()
    }


def guard_attribute(obj: Any, name: str, value: Any) -> Any:
    """What learner code gets for ``obj.name`` (already looked up as ``value``)."""
    if name in ORDERING_METHODS:
        if isinstance(obj, np.ndarray):
            if obj.dtype.hasobject:
                _refuse(f"ndarray.{name}")
            return value
        if isinstance(obj, type) and issubclass(obj, np.ndarray):
            # Unbound (np.ndarray.sort, type(a).sort): the array comes as an argument.
            return refusing_object_arrays(value, f"ndarray.{name}")
    elif name in UFUNC_METHODS and isinstance(obj, np.ufunc):
        return refusing_object_arrays(value, f"np.{obj.__name__}.{name}")
    return value

