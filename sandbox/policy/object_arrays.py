"""Arrays of Python objects (dtype=object) are data to learner code, never an operand of numpy.

Many of numpy's loops over an object array hold *borrowed* pointers to its elements while they
call the elements' own methods: sorts, searches and min/max reductions call ``__lt__``;
``maximum``, ``minimum``, ``fmax``, ``fmin`` and ``clip`` call ``__ge__``/``__le__`` and then
return one of the operands; ``logical_and``/``logical_or`` call ``__bool__`` and do the same. A
learner's method that reassigns the array's items during that call frees an object numpy still
points at and returns: a use after free, which a determined learner turns into a forged object
and from there into the real builtins. Refusing the known-bad operations one by one missed some,
so the rule is now the other way round:

- every function and ufunc of the learner's numpy (and every ufunc method) refuses an argument
  that is an array of objects, or a list or tuple holding one (``out=(a,)``);
- an object array's own attributes are limited to a few that only read, reshape or copy it
  (``OBJECT_ARRAY_ATTRIBUTES``), whether reached on the array, through ``super()`` in a
  subclass, or unbound on the class (``np.ndarray.clip(a)``).

- object arrays are immutable to learner code (``Policy.write`` and ``Policy.inplacevar``), so
  no element can be freed while any loop, numpy's or CPython's, holds a borrowed pointer to it:
  arithmetic and comparison operators also call an element's method with borrowed operands,
  and CPython then calls the *other* operand's reflected method, freed or not;
- the methods of numeric arrays, numpy scalars and every other numpy object (random
  generators...) refuse object arrays as arguments too (``np.zeros(1).clip(objects)`` runs the
  same loop as ``np.clip``; ``rng.permuted(x, out=objects)`` writes into one);
- ``numpy.void`` scalars only read (``byteswap`` on one returns uninitialised memory, with
  object pointers in it when the dtype has object fields).

What stays allowed: building object arrays, reading and iterating them, Python's own
``sorted``/``max``/``sum`` on them (these hold real references), ``tolist()``/``astype()``, and
every numpy operation on numeric arrays.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from sandbox.policy.memory import zero_where_unwritten
from sandbox.policy.refusal import PolicyError

# What learner code may read on an array of objects: its shape, a copy, a list, a reshaped view.
OBJECT_ARRAY_ATTRIBUTES = frozenset(
    """
    shape ndim size dtype T tolist item copy reshape ravel flatten transpose squeeze astype
    """.split()
)
# What learner code may read on a numpy.void scalar (a record of a structured array).
VOID_ATTRIBUTES = frozenset("shape ndim size dtype item tolist".split())
# Functions and methods that are elementwise and take where= (zeroed where it is False).
ELEMENTWISE_WITH_WHERE = frozenset(["clip"])
# ufunc methods that reduce or scatter over an operand (np.maximum.reduce(a), ...).
UFUNC_METHODS = frozenset("reduce accumulate reduceat at outer".split())


class ObjectArrayRefused(PolicyError):
    """An operation on an array of Python objects; the message says what to do instead."""


def _is_object_array(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.hasobject


def holds_objects(value: Any) -> bool:
    """An array (or record) of Python objects, or a list/tuple with one at its top level."""
    if type(value) in (list, tuple):
        return any(_is_object_array(item) for item in value)
    return _is_object_array(value)


def immutable(value: Any) -> bool:
    """Whether learner code must not change ``value`` in place (see the module's docstring)."""
    return _is_object_array(value) or isinstance(value, np.void)


def _refuse(what: str) -> None:
    raise ObjectArrayRefused(
        f"{what} on an array of Python objects is not available in the judge; use a numeric "
        "array (a.astype(float)), or a list (a.tolist()) with Python's sorted()/max()/min()"
    )


def _structured(value: Any) -> bool:
    return isinstance(value, (np.ndarray, np.generic)) and (
        value.dtype.names is not None or value.dtype.kind == "V"
    )


def guarded_call(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function`` as learner code may call it: no array of objects in, no structured array out.

    Structured and raw ``V`` dtypes are refused as results: their padding bytes come
    uninitialised (leftover memory) and their records are ``numpy.void`` scalars; learner code
    has no use for them here.
    """

    @functools.wraps(function, assigned=("__name__", "__qualname__", "__doc__"), updated=())
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if any(holds_objects(value) for value in (*args, *kwargs.values())):
            _refuse(what)
        result = function(*args, **kwargs)
        parts = result if type(result) is tuple else (result,)
        if any(_structured(part) for part in parts):
            raise PolicyError(
                f"{what} made a structured array; structured and void dtypes are not available "
                "in the judge"
            )
        if any(_is_object_array(part) and type(part) is not np.ndarray for part in parts):
            raise PolicyError(f"{what} made an array of Python objects of your own subclass")
        return result

    return guarded


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
            zero_where_unwritten(output, mask)
    return result


class GuardedUfunc:
    """A numpy ufunc as learner code sees it: callable, with its methods, minus object arrays."""

    __slots__ = ("_ufunc", "_call")

    def __init__(self, ufunc: np.ufunc) -> None:
        object.__setattr__(self, "_ufunc", ufunc)
        object.__setattr__(self, "_call", _guarded(ufunc, f"np.{ufunc.__name__}", True))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return object.__getattribute__(self, "_call")(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        ufunc = object.__getattribute__(self, "_ufunc")
        return guard_attribute(ufunc, name, getattr(ufunc, name))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("numpy's ufuncs cannot be modified")

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_ufunc"))


def _guarded(function: Callable[..., Any], what: str, elementwise: bool) -> Callable[..., Any]:
    """``guarded_call``, plus the ``where=`` zeroing of ``masked_call`` when ``elementwise``."""
    guarded = guarded_call(function, what)
    if not elementwise:
        return guarded

    def call(*args: Any, **kwargs: Any) -> Any:
        return masked_call(guarded, args, kwargs)

    return call


def guard_member(prefix: str, name: str, value: Any) -> Any:
    """One member of a surface as learner code gets it (``prefix`` names it in refusals)."""
    if isinstance(value, np.ufunc):
        return GuardedUfunc(value)
    if callable(value) and not isinstance(value, type):
        return _guarded(value, f"{prefix}.{name}", name in ELEMENTWISE_WITH_WHERE)
    return value  # classes (dtypes, errstate, deque...) and constants


def vectorize(pyfunc: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.vectorize``: the vectorised function is called like any other numpy function."""
    return guarded_call(np.vectorize(pyfunc, *args, **kwargs), "np.vectorize(...)")


def guard_surface(members: dict[str, Any], prefix: str = "np") -> dict[str, Any]:
    """A surface (numpy's, or a standard module's) with every function and ufunc guarded."""
    return {name: guard_member(prefix, name, value) for name, value in members.items()}


def from_numpy(cls: type) -> bool:
    """Whether ``cls`` is numpy's, or derives from one of numpy's classes."""
    return any(base.__module__.partition(".")[0] == "numpy" for base in cls.__mro__)


def guard_attribute(obj: Any, name: str, value: Any) -> Any:
    """What learner code gets for ``obj.name`` (already looked up as ``value``)."""
    if type(obj) is super:
        # super().clip() in a subclass of np.ndarray reaches the array's own methods.
        obj = obj.__self__  # type: ignore[attr-defined]
    is_array_class = isinstance(obj, type) and issubclass(obj, np.ndarray)
    if name == "resize" and (isinstance(obj, np.ndarray) or is_array_class):
        # resize(refcheck=False) frees the data under every view of the array: the views then
        # read and write freed memory (object arrays: fake pointers).
        raise PolicyError("ndarray.resize is not available in the judge; build a new array")
    if isinstance(obj, np.void) and name not in VOID_ATTRIBUTES:
        raise PolicyError(f"numpy.void.{name} is not available in the judge")
    is_flexible = isinstance(obj, np.flexible) or (
        isinstance(obj, type) and issubclass(obj, np.flexible)
    )
    if is_flexible and name == "byteswap":
        # numpy.bytes_/str_/void.byteswap() copies nothing into the block it returns.
        kind = obj.__name__ if isinstance(obj, type) else type(obj).__name__
        raise PolicyError(f"{kind}.byteswap is not available in the judge")
    if isinstance(obj, (np.ndarray, np.generic)):
        if obj.dtype.hasobject and name not in OBJECT_ARRAY_ATTRIBUTES:
            _refuse(f"ndarray.{name}")
        if not callable(value):
            return value
        # Its methods take arrays too: np.zeros(1).clip(objects) is np.clip(objects).
        return _guarded(value, f"ndarray.{name}", name in ELEMENTWISE_WITH_WHERE)
    if is_array_class and callable(value):
        # Unbound (np.ndarray.clip, type(a).argmax): the array comes as an argument.
        return _guarded(value, f"ndarray.{name}", name in ELEMENTWISE_WITH_WHERE)
    if isinstance(obj, np.ufunc) and name in UFUNC_METHODS:
        return _guarded(value, f"np.{obj.__name__}.{name}", name == "outer")
    owner = obj if isinstance(obj, type) else type(obj)
    if callable(value) and from_numpy(owner):
        # Any other numpy object's methods (a Generator's permuted(x, out=objects) writes into
        # an object array), a learner's subclass of one included.
        return guarded_call(value, f"{owner.__name__}.{name}")
    return value
