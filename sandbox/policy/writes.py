"""Writes by learner code: item and attribute assignment, augmented assignment, ``setattr``.

RestrictedPython routes every write target through ``_write_``; ``Writes.write`` decides. No
surface, module, function, numpy or typing object, or class but the learner's own is written;
an object array never is (``object_arrays.refuse_write``); a numeric array takes items and
``shape`` only, through ``ArrayWriter``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Container
from types import FunctionType, MethodType, ModuleType
from typing import Any

import numpy as np

from sandbox.policy import refusal
from sandbox.policy.attributes import BLOCKED_ATTRIBUTES, learner_getattr
from sandbox.policy.object_arrays import refuse_write
from sandbox.policy.refusal import PolicyError
from sandbox.policy.surfaces import Surface

INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "@=": operator.imatmul,
}


class Writes:
    """The write guards of one policy; ``learner_classes`` are the classes learner code made."""

    def __init__(self, learner_classes: Container[type]) -> None:
        self.learner_classes = learner_classes

    def write(self, obj: Any) -> Any:
        """Returns the object if learner code may assign to its items or attributes."""
        if isinstance(obj, (Surface, ModuleType)) or (
            isinstance(obj, type) and obj not in self.learner_classes
        ):
            raise PolicyError(refusal.cannot_modify(f"{type(obj).__name__} objects"))
        if isinstance(obj, (FunctionType, MethodType)):
            raise PolicyError(refusal.cannot_modify("functions"))
        if type(obj).__module__ == "typing":
            # typing.Sequence.index = f would patch collections.abc.Sequence itself.
            raise PolicyError(refusal.cannot_modify("typing objects"))
        refuse_write(obj)
        if isinstance(obj, np.ndarray):
            return ArrayWriter(obj)
        if isinstance(obj, (list, bytearray)):
            return SequenceWriter(obj)
        return obj

    def setattr(self, obj: Any, name: str, value: Any, /) -> None:
        if type(name) is not str or name.startswith("_") or name in BLOCKED_ATTRIBUTES:
            # Names refused to read are refused to write (a KeyWrapper's ``obj``).
            raise AttributeError(refusal.cannot_set(name))
        setattr(self.write(obj), name, value)

    def inplace_item(self, obj: Any, key: Any, op: str, value: Any) -> None:
        # ``box[0] += 1`` with an object array in box[0] is ``a += 1`` on it: numpy writes into
        # the array in place before the item is stored back.
        target = self.write(obj)
        current = obj[key]
        refuse_write(current)
        target[key] = INPLACE[op](current, value)  # a list's slice: through SequenceWriter

    def inplace_attribute(self, obj: Any, name: str, op: str, value: Any) -> None:
        current = learner_getattr(obj, name)
        refuse_write(current)  # ``h.x *= 3``, h.x an object array: as inplace_item
        self.setattr(obj, name, INPLACE[op](current, value))

    def inplacevar(self, op: str, current: Any, value: Any) -> Any:
        refuse_write(current)
        return INPLACE[op](current, value)


# Values a list or bytearray slice assignment takes as they are: C code reads them without
# running any learner code.
PLAIN_SEQUENCES = (list, tuple, str, bytes, bytearray, range)


def plain_slice_value(value: Any) -> Any:
    """``value`` as a list's slice assignment may take it: learner iterables read into a list
    first, in Python, before the C code that writes the slice has read the target's length."""
    if type(value) in PLAIN_SEQUENCES:
        return value
    return list(value)


class SequenceWriter:
    """What ``_write_`` gives learner code for a list or a bytearray (their subclasses too).

    ``lst[::2] = it`` had C code compute the slice from the list's length and only then
    convert ``it``, running the learner's ``__next__``: one that emptied ``lst`` had the C
    code write past the list's new end (CPython gh-120384). A slice's value
    is read into a plain list here first; every other write goes to the target unchanged.
    """

    __slots__ = ("_target",)
    _target: list[Any] | bytearray

    def __init__(self, target: list[Any] | bytearray) -> None:
        object.__setattr__(self, "_target", target)

    def __getitem__(self, key: Any) -> Any:
        return self._target[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        if type(key) is slice:
            value = plain_slice_value(value)
        self._target[key] = value

    def __delitem__(self, key: Any) -> None:
        del self._target[key]

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target, name, value)  # a learner subclass's own attribute

    def __delattr__(self, name: str) -> None:
        delattr(self._target, name)


class ArrayWriter:
    """What ``_write_`` gives learner code for a (numeric) array: its items, and ``shape``.

    Its other attributes (``dtype``, ``strides``) reinterpret the array's bytes in place, into
    structured records or overlapping views: ``a.astype``/``a.view`` build those, checked.
    """

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray[Any, Any]) -> None:
        object.__setattr__(self, "_array", array)

    def __getitem__(self, key: Any) -> Any:  # a[i] += 1 reads through the same object
        return object.__getattribute__(self, "_array")[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        object.__getattribute__(self, "_array")[key] = value

    def __delitem__(self, key: Any) -> None:
        del object.__getattribute__(self, "_array")[key]

    def __setattr__(self, name: str, value: Any) -> None:
        array = object.__getattribute__(self, "_array")
        if name != "shape" and hasattr(np.ndarray, name):
            raise PolicyError(refusal.not_available(f"setting ndarray.{name}"))
        setattr(array, name, value)  # shape, or a learner subclass's own attribute

    def __delattr__(self, name: str) -> None:
        raise PolicyError(refusal.not_available(f"deleting ndarray.{name}"))
