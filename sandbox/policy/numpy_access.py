"""How learner code reaches numpy's callables and attributes: every one of them through a guard.

A surface's functions and ufuncs, a ufunc's methods, an array's methods (bound, unbound or
through ``super()``) and any other numpy object's methods are wrapped by ``guarded_call``, which
applies the numpy rules of ``object_arrays`` (operands and results) and ``memory`` (no
structured results; ``where=`` outputs zeroed). ``guard_attribute`` is what an attribute read on
a numpy object gives learner code; the standard modules' surfaces use ``guard_surface`` too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from sandbox.policy import memory, object_arrays

# Functions and methods that are elementwise and take where= (zeroed where it is False).
ELEMENTWISE_WITH_WHERE = frozenset(["clip"])
# ufunc methods that reduce or scatter over an operand (np.maximum.reduce(a), ...).
UFUNC_METHODS = frozenset("reduce accumulate reduceat at outer".split())


def guarded_call(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function`` as learner code may call it: no array of objects in, no structured array or
    object array of a learner subclass out."""

    @functools.wraps(function, assigned=("__name__", "__qualname__", "__doc__"), updated=())
    def guarded(*args: Any, **kwargs: Any) -> Any:
        object_arrays.refuse_operands(what, (*args, *kwargs.values()))
        result = function(*args, **kwargs)
        parts = result if type(result) is tuple else (result,)
        memory.refuse_structured(what, parts)
        object_arrays.refuse_results(what, parts)
        return result

    return guarded


class GuardedUfunc:
    """A numpy ufunc as learner code sees it: guarded calls, and guarded methods."""

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
    """``guarded_call``, plus the ``where=`` zeroing of ``memory.masked_call`` when
    ``elementwise``."""
    guarded = guarded_call(function, what)
    if not elementwise:
        return guarded

    def call(*args: Any, **kwargs: Any) -> Any:
        return memory.masked_call(guarded, args, kwargs)

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
    memory.check_attribute(obj, name)
    if isinstance(obj, (np.ndarray, np.generic)):
        object_arrays.check_attribute(obj, name)
        if not callable(value):
            return value
        # Its methods take arrays too: np.zeros(1).clip(objects) is np.clip(objects).
        return _guarded(value, f"ndarray.{name}", name in ELEMENTWISE_WITH_WHERE)
    if isinstance(obj, type) and issubclass(obj, np.ndarray) and callable(value):
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
