"""Every array learner code gets from numpy is initialised: no leftover memory reaches it.

A child is forked from the zygote, whose freed heap still holds earlier jobs' bytes: other
learners' source code among them. numpy hands out uninitialised memory in a few places
(``np.empty``, ``np.ndarray(shape)``, ``np.pad(mode="empty")``, a ufunc's output where
``where=`` is False), so a learner
could read fragments of someone else's submission with ``np.empty(n, np.uint8).tobytes()``
(seen in testing). Here those allocations come zeroed instead; the values a correct program
reads are unchanged, since it writes every element before reading it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sandbox.policy.refusal import PolicyError

# np.ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None)
_NDARRAY_PARAMETERS = ("shape", "dtype", "buffer", "offset", "strides", "order")


def empty(shape: Any, dtype: Any = float, order: Any = "C", **kwargs: Any) -> Any:
    """``np.empty``, zeroed (same signature as ``np.zeros``)."""
    return np.zeros(shape, dtype, order, **kwargs)


def empty_like(prototype: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.empty_like``, zeroed."""
    return np.zeros_like(prototype, *args, **kwargs)


def pad(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> Any:
    """``np.pad``, with ``mode="empty"`` (uninitialised edges) padding with zeros instead."""
    return np.pad(array, pad_width, "constant" if mode == "empty" else mode, **kwargs)


def new_array(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``np.ndarray(shape, dtype, order=...)`` (or a learner subclass of it), zeroed.

    ``buffer``, ``offset`` and ``strides`` are refused: an array over raw bytes turns them into
    object pointers, and strides past the allocation read memory that is not the array's.
    """
    if len(args) > len(_NDARRAY_PARAMETERS):
        raise TypeError("np.ndarray() takes at most 6 arguments")
    given = dict(zip(_NDARRAY_PARAMETERS, args, strict=False))
    for name, value in kwargs.items():
        if name not in _NDARRAY_PARAMETERS or name in given:
            raise TypeError(f"np.ndarray() got an unexpected or repeated argument {name!r}")
        given[name] = value
    if "shape" not in given:
        raise TypeError("np.ndarray() needs a shape")
    for name in ("buffer", "offset", "strides"):
        value = given.get(name)
        if not (value is None or (type(value) is int and value == 0)):
            raise PolicyError(
                f"np.ndarray(..., {name}=...) is not available in the judge; "
                "use np.array or np.zeros"
            )
    dtype = np.dtype(given.get("dtype", float))
    if dtype.names is not None or dtype.kind == "V":
        raise PolicyError("structured and void dtypes are not available in the judge")
    if dtype.hasobject and cls is not np.ndarray:
        # A subclass brings the learner's own __getitem__ to code that writes items through the
        # real __setitem__ (random.shuffle): object arrays stay plain np.ndarray.
        raise PolicyError("an array of Python objects cannot be of your own ndarray subclass")
    order: Any = given.get("order") or "C"
    array = np.zeros(given["shape"], dtype=dtype, order=order)
    return array if cls is np.ndarray else array.view(cls)


def zero_where_unwritten(output: Any, mask: np.ndarray) -> None:
    """Zero the slots of a fresh output that a ``where=`` mask left unwritten."""
    if isinstance(output, np.ndarray) and not output.dtype.hasobject:
        untouched = np.logical_not(np.broadcast_to(mask, output.shape))
        np.copyto(output, 0, where=untouched, casting="unsafe")
