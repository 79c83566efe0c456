"""numpy's scalar classes (``np.float64``, ``np.int64``, ``np.bool_``...) and ``np.dtype`` as
learner code sees them: stand-ins whose calls take plain data only.

The real classes convert whatever they are given in C: an array of Python objects, a learner's
object through its ``__float__``, a learner's object's ``.dtype``, each a
call of learner code from inside numpy. The stand-ins take numbers, strings, numeric arrays,
dtypes, classes and plain lists, tuples and dicts of those, and refuse the rest with a sentence;
otherwise they behave like the classes: ``isinstance(x, np.float64)``, ``np.float64(0.5)``,
``dtype=np.float64`` (numpy reads the stand-in's ``dtype``), ``a.dtype.type is np.float64``,
``type(np.float64(1)) is np.float64``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sandbox.policy.kinds import plain
from sandbox.policy.numpy_access import (
    CLASS_STAND_INS,
    guard_attribute,
    guarded_call,
    lookup_hidden,
)
from sandbox.policy.refusal import PolicyError, scalar_class_argument

# The concrete scalar classes on the numpy surface (the abstract ones, np.floating and the
# like, build nothing: they stay numpy's own, for isinstance and np.issubdtype).
SCALAR_NAMES = """
    bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp float16 float32 float64
    complex64 complex128
""".split()


def plain_data(value: Any) -> bool:
    """Whether ``value`` is data numpy converts without calling code of the learner's: numbers,
    strings, numeric arrays of numpy's own class, dtypes, classes, and plain lists, tuples and
    dicts of those (looked through without recursion: a deep nesting is not a crash here)."""
    pending = [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if plain(item) or isinstance(item, (np.dtype, ClassStandIn)):
            continue
        if kind is list or kind is tuple:
            pending.extend(item)
        elif kind is dict:
            pending.extend(item.keys())
            pending.extend(item.values())
        else:
            return False
    return True


class ClassStandIn:
    """The stand-in for one of numpy's scalar classes, or for np.dtype."""

    __slots__ = ("_real", "_call", "dtype")

    def __init__(self, real: type) -> None:
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_call", guarded_call(real, f"np.{real.__name__}"))
        if real is not np.dtype:
            # What numpy reads when the stand-in is given as a dtype (``dtype=np.float64``).
            object.__setattr__(self, "dtype", np.dtype(real))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        real = object.__getattribute__(self, "_real")
        args = tuple(_real_class(argument) for argument in args)
        kwargs = {name: _real_class(value) for name, value in kwargs.items()}
        if not (plain_data(args) and plain_data(list(kwargs.values()))):
            raise PolicyError(scalar_class_argument(f"np.{real.__name__}"))
        return object.__getattribute__(self, "_call")(*args, **kwargs)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, object.__getattribute__(self, "_real"))

    def __subclasscheck__(self, cls: Any) -> bool:
        real = object.__getattribute__(self, "_real")
        cls = _real_class(cls)
        return isinstance(cls, type) and issubclass(cls, real)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        # ``class X(np.float64)``: the class builder refuses numpy bases with its own sentence.
        return (object.__getattribute__(self, "_real"),)

    def __getattr__(self, name: str) -> Any:
        real = object.__getattribute__(self, "_real")
        value = lookup_hidden(real, name, f"np.{real.__name__}")
        return guard_attribute(real, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("numpy's classes cannot be modified")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("numpy's classes cannot be modified")

    def __repr__(self) -> str:
        return repr(object.__getattribute__(self, "_real"))


def _real_class(value: Any) -> Any:
    if type(value) is ClassStandIn:
        return object.__getattribute__(value, "_real")
    return value


def scalar_classes() -> dict[str, ClassStandIn]:
    """The stand-ins by their numpy names (one per class: np.intp is np.int64 here), registered
    so that reading a class off a numpy object (``a.dtype.type``) gives the stand-in too."""
    shown: dict[str, ClassStandIn] = {}
    for name in [*SCALAR_NAMES, "dtype"]:
        real = getattr(np, name)
        if real not in CLASS_STAND_INS:
            CLASS_STAND_INS[real] = ClassStandIn(real)
        shown[name] = CLASS_STAND_INS[real]
    return shown
