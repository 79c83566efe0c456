"""How learner code reaches numpy's callables and attributes: every one of them through a guard.

A surface's functions and ufuncs, a ufunc's methods, an array's methods (bound, unbound or
through ``super()``) and any other numpy object's methods are wrapped by ``guarded_call``, which
applies the numpy rules of ``object_arrays`` (operands and results) and ``memory`` (no
structured results; ``where=`` outputs zeroed). ``guard_attribute`` is what an attribute read on
a numpy object gives learner code; the standard modules' surfaces use ``guard_surface`` too.

Learner code runs these guards in its hot loops, so they take shortcuts where the answer cannot
differ (README.md, "The guards' shortcuts decide as the rules do"): a class is sorted once by
which rules its instances' attributes need (``sort_class``), and plain operands and results
(``kinds``) pass a call's checks by their exact type.
"""

from __future__ import annotations

import functools
from abc import ABCMeta
from collections.abc import Callable
from types import MethodType, ModuleType, WrapperDescriptorType
from typing import Any

import numpy as np

from sandbox.policy import memory, object_arrays
from sandbox.policy.getters import PYTHON_GETTERS, guarded_getter
from sandbox.policy.kinds import NUMERIC_DTYPE_IDS, PLAIN_TYPES
from sandbox.policy.refusal import (
    ObjectArrayRefused,
    PolicyError,
    not_available,
    object_array_operand,
)

# Functions and methods that are elementwise and take where= (zeroed where it is False).
ELEMENTWISE_WITH_WHERE = frozenset(["clip"])
# ufunc methods that reduce or scatter over an operand (np.maximum.reduce(a), ...).
UFUNC_METHODS = frozenset("reduce accumulate reduceat at outer".split())
_ARRAY_CLASS = np.ndarray
_FLOAT64 = np.dtype(np.float64)  # numpy keeps one; its id is among NUMERIC_DTYPE_IDS


def guarded_call(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function`` as learner code may call it: no array of objects in, no structured array or
    object array of a learner subclass out."""
    return _named(_guarded(function, what, elementwise=False), function)


def _checking(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    """``function`` called under the two numpy rules: operands first, then what comes back.

    This runs for every numpy call learner code makes, so it is one frame, and the values
    ``kinds.plain`` passes (numbers, numeric arrays of numpy's own class), which no rule could
    refuse, are told apart inline by its test, without a call (numpy's own class first, then
    float64 by identity, the commonest dtype, before the set of numeric dtypes); anything else
    goes to the rules themselves.
    """

    def checked(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()) if kwargs else args:
            kind = type(value)
            if kind is _ARRAY_CLASS:
                dtype = value.dtype
                if dtype is _FLOAT64 or id(dtype) in NUMERIC_DTYPE_IDS:
                    continue
            elif kind in PLAIN_TYPES:
                continue
            object_arrays.refuse_operands(what, args, kwargs)
            break
        try:
            result = function(*args, **kwargs)
        except BaseException as exc:  # the handler ends before the raise: no context is kept
            failure: BaseException | None = exc
        else:
            failure = None
        if failure is not None:
            raise without_hidden_objects(failure)
        kind = type(result)
        if kind is _ARRAY_CLASS:
            dtype = result.dtype
            if dtype is _FLOAT64 or id(dtype) in NUMERIC_DTYPE_IDS:
                return result
        elif kind in PLAIN_TYPES:
            return result
        parts = result if kind is tuple else (result,)
        memory.refuse_structured(what, parts)
        object_arrays.refuse_results(what, parts)
        return result

    return checked


_PLAIN_ARGUMENTS = (str, bytes, int, float, complex, bool, type(None), np.dtype)


def without_hidden_objects(failure: BaseException) -> BaseException:
    """What learner code may catch of an exception a guarded call raised.

    numpy's errors carry the raw ufunc in their args (``np.add(strings, floats)``: the
    no-loop error's args are the ufunc and the dtypes), which then took object arrays, wrote
    into them and handed out uninitialised memory. An exception of numpy's,
    a standard module's or a built-in class whose args are not all plain data becomes a fresh
    exception of its nearest built-in class, with its message only; the learner's own
    exceptions (from their callbacks) and plain ones pass unchanged."""
    if all(isinstance(argument, _PLAIN_ARGUMENTS) for argument in failure.args):
        return failure
    cls = type(failure)
    library = cls.__module__.partition(".")[0]
    if library != "builtins" and library not in _GUARDED_LIBRARIES:
        return failure  # the learner's own exception class: only what they put in it
    built_in = next(base for base in cls.__mro__ if base.__module__ == "builtins")
    try:
        message = str(failure)
    except Exception:
        message = cls.__name__
    try:
        fresh: BaseException = built_in(message)
    except Exception:
        fresh = TypeError(message)
    return fresh


def _guarded(function: Callable[..., Any], what: str, elementwise: bool) -> Callable[..., Any]:
    """``guarded_call``, plus the ``where=`` zeroing of ``memory.masked_call`` when
    ``elementwise``. Made on every method read, so kept cheap (no ``functools.wraps``)."""
    checked = _checking(function, what)
    if not elementwise:
        return checked

    def guarded(*args: Any, **kwargs: Any) -> Any:
        if "where" in kwargs:
            return memory.masked_call(checked, args, kwargs)
        return checked(*args, **kwargs)

    return guarded


def _method(
    value: Callable[..., Any], what: str, elementwise: bool, owner: type, name: str
) -> Callable[..., Any]:
    """A numpy object's method as learner code gets it: guarded, and named as Python names it
    (``ndarray.sum``), so that printing it reads as it did with ``functools.wraps``."""
    guard = _guarded(value, what, elementwise)
    guard.__name__ = name
    guard.__qualname__ = f"{owner.__name__}.{name}"
    return guard


def _named(guard: Callable[..., Any], function: Callable[..., Any]) -> Callable[..., Any]:
    """A guard made once (a surface's member) carries its function's name and docstring."""
    functools.update_wrapper(guard, function, ("__name__", "__qualname__", "__doc__"), ())
    return guard


class GuardedUfunc:
    """A numpy ufunc as learner code sees it: guarded calls, and guarded methods."""

    __slots__ = ("_ufunc", "_checked")

    def __init__(self, ufunc: np.ufunc) -> None:
        object.__setattr__(self, "_ufunc", ufunc)
        object.__setattr__(self, "_checked", _checking(ufunc, f"np.{ufunc.__name__}"))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if "where" in kwargs:
            return memory.masked_call(self._checked, args, kwargs)
        return self._checked(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        ufunc = object.__getattribute__(self, "_ufunc")
        return guard_attribute(ufunc, name, lookup_hidden(ufunc, name, f"np.{ufunc.__name__}"))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("numpy's ufuncs cannot be modified")

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_ufunc"))


def guard_member(prefix: str, name: str, value: Any) -> Any:
    """One member of a surface as learner code gets it (``prefix`` names it in refusals)."""
    if isinstance(value, np.ufunc):
        return GuardedUfunc(value)
    if callable(value) and not isinstance(value, type):
        return _named(_guarded(value, f"{prefix}.{name}", name in ELEMENTWISE_WITH_WHERE), value)
    return value  # classes (dtypes, errstate, deque...) and constants


def vectorize(pyfunc: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.vectorize``: the vectorised function is called like any other numpy function.

    Never with an object output type: numpy then stores whatever the learner's function
    returns, their own objects included, in an object array."""
    vectorized = np.vectorize(pyfunc, *args, **kwargs)
    if any(np.dtype(kind).kind == "O" for kind in vectorized.otypes or ""):
        raise ObjectArrayRefused(object_array_operand("np.vectorize with an object otypes"))
    return _guarded(vectorized, "np.vectorize(...)", False)


def guard_surface(members: dict[str, Any], prefix: str = "np") -> dict[str, Any]:
    """A surface (numpy's, or a standard module's) with every function and ufunc guarded."""
    return {name: guard_member(prefix, name, value) for name, value in members.items()}


def from_numpy(cls: type) -> bool:
    """Whether ``cls`` is numpy's, or derives from one of numpy's classes."""
    return any(base.__module__.partition(".")[0] == "numpy" for base in cls.__mro__)


# The standard modules learner code may import (sandbox.policy.imports) have classes too, and
# their methods take containers: random.Random(1).shuffle(objects) wrote into an object array.
# Their instances' methods are guarded as numpy objects' are.
_GUARDED_LIBRARIES = frozenset(
    "numpy random _random statistics collections _collections itertools functools _functools "
    "fractions operator _operator heapq _heapq bisect _bisect copy math typing contextlib".split()
)


def from_guarded_library(cls: type) -> bool:
    """Whether ``cls`` is, or derives from, a class of numpy or of an importable standard module."""
    return any(base.__module__.partition(".")[0] in _GUARDED_LIBRARIES for base in cls.__mro__)


def lookup_hidden(real: Any, name: str, shown: str) -> Any:
    """``getattr(real, name)`` for a stand-in whose ``real`` object learner code never holds.

    A miss raises an AttributeError of its own, outside the failed lookup's handler: Python's
    would carry ``real`` as its ``obj`` (and as its context), handing the raw ufunc or class to
    the learner's ``except`` (the real np.ndarray, then forged objects)."""
    try:
        return getattr(real, name)
    except AttributeError:
        pass
    raise AttributeError(f"{shown} has no attribute {name!r}")


# What ``guard_attribute`` does with an attribute of an instance depends, but for the checks
# each rule makes of the instance itself (an array's dtype), on the instance's class alone:
# so the class is sorted once. This holds because learner code cannot change a class's MRO or
# ``__module__`` (no '_' names: not in code, not in setattr), cannot make ``__class__`` lie
# (no ``__class__``/``__getattribute__`` in a class body; ``_reports_its_own_class``), and
# cannot assign ``obj.__class__``. Classes whose instances need the whole walk every time:
# ``super`` (the rules apply to its ``__self__``), bound methods (to their ``__func__``, off
# which they read every attribute they lack), classes (instances of ``type``), modules,
# ufuncs, numpy's flexible scalars (np.void, np.str_, np.bytes_).
AS_IS, ARRAY, _NUMPY_OBJECT, EACH_TIME = "as is", "array", "numpy object", "each time"
_EACH_TIME_BASES = (type, super, MethodType, ModuleType, np.ufunc, np.flexible)
# Looking a class up never runs a metaclass's __hash__ or __eq__: a class whose metaclass is
# exactly ``type`` is its own key (its hash is its address, its comparison identity, both in C),
# any other is keyed by its id (``class_key``), the class itself checked on the way out. Each
# entry holds its class, so its id is never reused. ``attributes.learner_attribute`` reads it
# too (the key spelled inline), to go straight to ``guard_sorted_attribute``.
SORTED_CLASSES: dict[object, tuple[type, str]] = {}
_SORTED_LIMIT = 4096  # learner code can make classes without end: past this, sort each time
_OBJECT_CLASS = object.__dict__["__class__"]


def _reports_its_own_class(cls: type) -> bool:
    """Whether ``isinstance`` on an instance of ``cls`` sees ``cls`` (no ``__class__`` of its own,
    no ``__getattribute__`` written in Python that could answer for it)."""
    found = {}
    for base in cls.__mro__:
        for name in ("__class__", "__getattribute__"):
            if name not in found and name in base.__dict__:
                found[name] = base.__dict__[name]
    return found.get("__class__") is _OBJECT_CLASS and isinstance(
        found.get("__getattribute__"), WrapperDescriptorType
    )


def _sort(cls: type) -> str:
    if not _reports_its_own_class(cls) or issubclass(cls, _EACH_TIME_BASES):
        return EACH_TIME
    if issubclass(cls, (np.ndarray, np.generic)):
        return ARRAY
    return _NUMPY_OBJECT if from_guarded_library(cls) else AS_IS


def class_key(cls: type) -> object:
    """What ``cls`` is looked up by: itself if its metaclass is exactly ``type``, else its id."""
    return cls if type(cls) is type else id(cls)


def sort_class(cls: type) -> str:
    """How ``guard_attribute`` treats instances of ``cls`` (sorted once, then remembered)."""
    key = class_key(cls)
    entry = SORTED_CLASSES.get(key)
    if entry is not None and entry[0] is cls:
        return entry[1]
    kind = _sort(cls)
    if len(SORTED_CLASSES) < _SORTED_LIMIT:
        SORTED_CLASSES[key] = (cls, kind)
    return kind


# numpy's classes that learner code sees through a stand-in (``scalars``), by the real class: a
# class read off a numpy object (``a.dtype.type``) is handed out as its stand-in.
CLASS_STAND_INS: dict[type, Any] = {}


def refuse_registration(obj: Any, name: str) -> None:
    """Refuse ``register`` on an abstract base class (``fractions.Fraction.register(float)``,
    ``typing.Sequence.register``): it changes what isinstance answers for everyone, the standard
    library's own checks included."""
    if name == "register" and (isinstance(obj, ABCMeta) or type(obj).__module__ == "typing"):
        raise PolicyError(not_available("registering a class with an abstract base class"))


def guard_attribute(obj: Any, name: str, value: Any) -> Any:
    """What learner code gets for ``obj.name`` (already looked up as ``value``)."""
    cls = type(obj)
    # isinstance reads __class__: an object whose __class__ is not its type gets the walk.
    kind = sort_class(cls) if obj.__class__ is cls else EACH_TIME
    return guard_sorted_attribute(kind, obj, name, value)


def guard_sorted_attribute(kind: str, obj: Any, name: str, value: Any) -> Any:
    """``guard_attribute``, the object's class sorted as ``kind`` (and its __class__ honest)."""
    if kind is AS_IS:
        # Neither numpy's nor a class, a module or super: no numpy rule concerns it.
        return value
    if kind is EACH_TIME:
        return _guard_attribute_walk(obj, name, value)
    cls = type(obj)
    read = _MEMBER_READS.get((cls if type(cls) is type else id(cls), name))
    if read is None or read[0] is not cls:
        read = _first_read(kind, obj, name)
    _, asks_dtype, exception_args, what, qualname, elementwise = read
    if asks_dtype and not (
        cls is _ARRAY_CLASS and (obj.dtype is _FLOAT64 or id(obj.dtype) in NUMERIC_DTYPE_IDS)
    ):
        # A numeric array of numpy's own class holds no objects (kinds.plain); any other
        # array or scalar is asked in full, every time: its dtype is never remembered.
        object_arrays.check_attribute(obj, name)
    if exception_args:
        # An operator's error (strings + floats) reaches learner code unguarded, the raw
        # ufunc in its args: they read as the message alone.
        return without_hidden_objects(obj).args
    if not callable(value):
        return value
    if isinstance(value, type) and value in CLASS_STAND_INS:
        return CLASS_STAND_INS[value]  # a.dtype.type
    guard = _guarded(value, what, True) if elementwise else _checking(value, what)
    guard.__name__ = name  # named as Python names the method (ndarray.sum), for printing
    guard.__qualname__ = qualname
    return guard


# What reading ``name`` on instances of a sorted numpy class (an array class, or another class
# of numpy's or of a standard module) asks besides the value read, by (class_key, name): the
# rules that look at the class and the name alone (memory's, registration) passed on the first
# read, and what is left is kept here. Held as SORTED_CLASSES holds its classes (each entry
# holds its class, so its id is never reused); bounded, since learner code can make names.
_MEMBER_READS: dict[tuple[object, str], tuple[type, bool, bool, str, str, bool]] = {}
_MEMBER_READS_LIMIT = 4096


def _first_read(kind: str, obj: Any, name: str) -> tuple[type, bool, bool, str, str, bool]:
    """Apply the rules of ``obj.name`` that ask only ``obj``'s class and ``name`` (raising if one
    refuses), and say what each read of it still asks: (the class, whether object_arrays asks
    the dtype, whether it is an exception's args, the refusals' name for it, the guard's
    qualname, whether it takes where=)."""
    cls = type(obj)
    memory.check_attribute(obj, name)
    if kind is ARRAY:
        read = (
            cls,
            name not in object_arrays.OBJECT_ARRAY_ATTRIBUTES,
            False,
            f"ndarray.{name}",
            f"{cls.__name__}.{name}",
            name in ELEMENTWISE_WITH_WHERE,
        )
    else:
        refuse_registration(obj, name)
        exception_args = name == "args" and isinstance(obj, BaseException)
        what = f"{cls.__name__}.{name}"
        read = (cls, False, exception_args, what, what, False)
    if len(_MEMBER_READS) < _MEMBER_READS_LIMIT:
        _MEMBER_READS[(class_key(cls), name)] = read
    return read


def _guard_attribute_walk(obj: Any, name: str, value: Any) -> Any:
    """``guard_attribute`` for any object, asking every question of the object itself."""
    if type(obj) is super:
        # super().clip() in a subclass of np.ndarray reaches the array's own methods.
        obj = obj.__self__  # type: ignore[attr-defined]
    while type(obj) is MethodType:
        # A bound method has no attribute of its own that learner code may name: every other
        # one is read off what it binds, so the rules apply to that.
        obj = obj.__func__
    memory.check_attribute(obj, name)
    refuse_registration(obj, name)
    if isinstance(value, type) and value in CLASS_STAND_INS:
        return CLASS_STAND_INS[value]
    if isinstance(obj, (np.ndarray, np.generic)):
        object_arrays.check_attribute(obj, name)
        if not callable(value):
            return value
        # Its methods take arrays too: np.zeros(1).clip(objects) is np.clip(objects).
        return _method(value, f"ndarray.{name}", name in ELEMENTWISE_WITH_WHERE, type(obj), name)
    if isinstance(obj, type) and issubclass(obj, np.ndarray) and callable(value):
        # Unbound (np.ndarray.clip, type(a).argmax): the array comes as an argument.
        return _method(value, f"ndarray.{name}", name in ELEMENTWISE_WITH_WHERE, obj, name)
    if isinstance(obj, np.ufunc) and name in UFUNC_METHODS:
        return _method(value, f"np.{obj.__name__}.{name}", name == "outer", type(obj), name)
    owner = obj if isinstance(obj, type) else type(obj)
    if name == "args" and isinstance(obj, BaseException):
        return without_hidden_objects(obj).args
    if isinstance(value, PYTHON_GETTERS) and from_guarded_library(owner):
        return guarded_getter(
            value, owner, name, lambda f, what: _method(f, what, False, owner, name)
        )
    if callable(value) and from_guarded_library(owner):
        # Any other numpy object's methods (a Generator's permuted(x, out=objects) writes into
        # an object array), a standard class's (Random.shuffle), a learner's subclass of one.
        return _method(value, f"{owner.__name__}.{name}", False, owner, name)
    return value
