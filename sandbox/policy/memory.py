"""Every array learner code gets from numpy is initialised: no leftover memory reaches it.

A child is forked from the zygote, whose freed heap still holds earlier jobs' bytes: other
learners' source code among them. numpy hands out uninitialised memory in a few places
(``np.empty``, ``np.ndarray(shape)``, ``np.pad(mode="empty")``, a ufunc's output where
``where=`` is False, the padding of structured dtypes, a flexible scalar's ``byteswap``), so a
learner could read fragments of someone else's submission with
``np.empty(n, np.uint8).tobytes()`` (seen in testing). Here those allocations come zeroed or are
refused; the values a correct program reads are unchanged, since it writes every element before
reading it. ``ndarray.resize`` is refused too: it frees the data under every view of the array.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from sandbox.policy.kinds import PLAIN_TYPES, numpy_dtype
from sandbox.policy.object_arrays import is_object_array, refuse_subclass
from sandbox.policy.refusal import (
    RAW_BUFFER,
    RESIZE,
    STRUCTURED_DTYPES,
    PolicyError,
    ndarray_over_memory,
    not_available,
    structured_result,
)

# np.ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None)
_NDARRAY_PARAMETERS = ("shape", "dtype", "buffer", "offset", "strides", "order")
# What learner code may read on a numpy.void scalar (a record of a structured array).
VOID_ATTRIBUTES = frozenset("shape ndim size dtype item tolist".split())


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
            raise PolicyError(ndarray_over_memory(name))
    dtype = np.dtype(given.get("dtype", float))
    if dtype.names is not None or dtype.kind == "V":
        raise PolicyError(STRUCTURED_DTYPES)
    refuse_subclass(cls, dtype)
    order: Any = given.get("order") or "C"
    array = np.zeros(given["shape"], dtype=dtype, order=order)
    return array if cls is np.ndarray else array.view(cls)


def _structured(value: Any) -> bool:
    dtype = numpy_dtype(value)  # not value.dtype: a learner's subclass can shadow that name
    return dtype is not None and (dtype.names is not None or dtype.kind == "V")


def refuse_structured(what: str, parts: Iterable[Any]) -> None:
    """Refuse structured and raw ``V`` results of ``what``.

    Their padding bytes come uninitialised (leftover memory) and their records are
    ``numpy.void`` scalars; learner code has no use for them here.
    """
    for part in parts:
        kind = type(part)
        if kind is np.ndarray:  # numpy's own class: its dtype is the real one
            dtype = part.dtype
            if dtype.names is not None or dtype.kind == "V":
                raise PolicyError(structured_result(what))
        elif kind not in PLAIN_TYPES and _structured(part):
            raise PolicyError(structured_result(what))


def check_attribute(obj: Any, name: str) -> None:
    """Refuse the attributes of numpy objects that free memory or hand out uninitialised bytes."""
    if name == "resize" and (
        isinstance(obj, np.ndarray) or (isinstance(obj, type) and issubclass(obj, np.ndarray))
    ):
        # resize(refcheck=False) frees the data under every view of the array: the views then
        # read and write freed memory (object arrays: fake pointers).
        raise PolicyError(RESIZE)
    if name == "data" and (
        isinstance(obj, (np.ndarray, np.generic))
        or (isinstance(obj, type) and issubclass(obj, (np.ndarray, np.generic)))
    ):
        # A memoryview of the buffer: cast to bytes over an object array, it read and wrote
        # the array's pointers, forging objects at any address.
        raise PolicyError(RAW_BUFFER)
    if isinstance(obj, np.generic):  # np.void and np.flexible are numpy scalars
        if isinstance(obj, np.void) and name not in VOID_ATTRIBUTES:
            raise PolicyError(not_available(f"numpy.void.{name}"))
        if name == "byteswap" and isinstance(obj, np.flexible):
            # numpy.bytes_/str_/void.byteswap() copies nothing into the block it returns.
            raise PolicyError(not_available(f"{type(obj).__name__}.byteswap"))
    elif name == "byteswap" and isinstance(obj, type) and issubclass(obj, np.flexible):
        raise PolicyError(not_available(f"{obj.__name__}.byteswap"))


def masked_call(call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """An elementwise call (a ufunc, clip): outputs numpy allocates come zeroed where
    ``where=`` is False, instead of holding whatever memory was there.

    The mask is converted once, before the call, and that array is what numpy uses: a learner
    object converted inside the call cannot change it between the call and the zeroing.
    """
    if "where" not in kwargs:
        return call(*args, **kwargs)
    mask = np.asarray(kwargs["where"], dtype=bool)
    out = kwargs.get("out")
    fresh: list[int] | None  # the outputs numpy allocates (None: all of them)
    if isinstance(out, tuple):
        fresh = [index for index, given in enumerate(out) if given is None]
    else:
        fresh = [] if out is not None else None
    result = call(*args, **{**kwargs, "where": mask, "out": out})  # out=None: "I know"
    outputs = result if isinstance(result, tuple) else (result,)
    for index, output in enumerate(outputs):
        if fresh is None or index in fresh:
            _zero_where_unwritten(output, mask)
    return result


def _zero_where_unwritten(output: Any, mask: np.ndarray[Any, Any]) -> None:
    """Zero the slots of a fresh output that a ``where=`` mask left unwritten."""
    if isinstance(output, np.ndarray) and not is_object_array(output):
        # copyto broadcasts the mask to the output's real shape (output.shape is a name a
        # learner's subclass could shadow).
        np.copyto(output, 0, where=np.logical_not(mask), casting="unsafe")
