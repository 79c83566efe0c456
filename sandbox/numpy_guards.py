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

from sandbox.numpy_memory import zero_where_unwritten
from sandbox.refusal import PolicyError

# What learner code may read on an array of objects: its shape, a copy, a list, a reshaped view.
OBJECT_ARRAY_ATTRIBUTES = frozenset(
    """
    shape ndim size dtype T tolist item copy reshape ravel flatten transpose squeeze astype
    """.split()
)
# What learner code may read on a numpy.void scalar (a record of a structured array).
VOID_ATTRIBUTES = frozenset("shape ndim size dtype item tolist".split())
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


def refusing_object_arrays(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function``, refusing to run when an argument is an array of Python objects."""

    @functools.wraps(function, assigned=("__name__", "__qualname__", "__doc__"), updated=())
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if any(holds_objects(value) for value in (*args, *kwargs.values())):
            _refuse(what)
        return function(*args, **kwargs)

    return guarded


def _masked_call(call: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """A ufunc call; with ``where=`` and no ``out=``, the slots the mask skips come zeroed."""
    if "where" not in kwargs or kwargs.get("out") is not None:
        return call(*args, **kwargs)
    result = call(*args, **{**kwargs, "out": None})  # out=None: numpy's own "I know"
    return zero_where_unwritten(result, kwargs["where"])


class GuardedUfunc:
    """A numpy ufunc as learner code sees it: callable, with its methods, minus object arrays."""

    __slots__ = ("_ufunc", "_call")

    def __init__(self, ufunc: np.ufunc) -> None:
        object.__setattr__(self, "_ufunc", ufunc)
        object.__setattr__(self, "_call", refusing_object_arrays(ufunc, f"np.{ufunc.__name__}"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _masked_call(object.__getattribute__(self, "_call"), args, kwargs)

    def __getattr__(self, name: str) -> Any:
        ufunc = object.__getattribute__(self, "_ufunc")
        return guard_attribute(ufunc, name, getattr(ufunc, name))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("numpy's ufuncs cannot be modified")

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_ufunc"))


def guard_member(name: str, value: Any) -> Any:
    """One member of a numpy surface as learner code gets it."""
    if isinstance(value, np.ufunc):
        return GuardedUfunc(value)
    if callable(value) and not isinstance(value, type):
        return refusing_object_arrays(value, f"np.{name}")
    return value  # classes (dtypes, errstate, vectorize...) and constants


def guard_surface(members: dict[str, Any]) -> dict[str, Any]:
    """A numpy surface with every function and ufunc guarded."""
    return {name: guard_member(name, value) for name, value in members.items()}


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
    if isinstance(obj, (np.ndarray, np.generic)):
        if obj.dtype.hasobject and name not in OBJECT_ARRAY_ATTRIBUTES:
            _refuse(f"ndarray.{name}")
        # Its methods take arrays too: np.zeros(1).clip(objects) is np.clip(objects).
        return refusing_object_arrays(value, f"ndarray.{name}") if callable(value) else value
    if is_array_class and callable(value):
        # Unbound (np.ndarray.clip, type(a).argmax): the array comes as an argument.
        return refusing_object_arrays(value, f"ndarray.{name}")
    if isinstance(obj, np.ufunc) and name in UFUNC_METHODS:
        guarded = refusing_object_arrays(value, f"np.{obj.__name__}.{name}")
        if name != "outer":
            return guarded

        def outer(*args: Any, **kwargs: Any) -> Any:
            return _masked_call(guarded, args, kwargs)

        return outer
    owner = obj if isinstance(obj, type) else type(obj)
    if callable(value) and owner.__module__.partition(".")[0] == "numpy":
        # Any other numpy object's methods (a Generator's permuted(x, out=objects) writes into
        # an object array) take no object array either.
        return refusing_object_arrays(value, f"{owner.__name__}.{name}")
    return value
