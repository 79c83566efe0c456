"""Arrays of Python objects (dtype=object) are inert data: never an operand of numpy, never written.

Many of numpy's loops over an object array hold *borrowed* pointers to its elements while they
call the elements' own methods: sorts, searches and min/max reductions call ``__lt__``;
``maximum``, ``minimum``, ``fmax``, ``fmin`` and ``clip`` call ``__ge__``/``__le__`` and then
return one of the operands; ``logical_and``/``logical_or`` call ``__bool__`` and do the same. A
learner's method that reassigns the array's items during that call frees an object numpy still
points at and returns: a use after free, which a determined learner turns into a forged object
and from there into the real builtins. CPython's own operators over object arrays do the same
(an element's ``__mul__`` runs with borrowed operands, then the other operand's ``__rmul__``).
Refusing the known-bad operations one by one missed some, so the rule is the other way round,
and this module is the one place it is decided. The guards ask it at each gate:

- a call of anything on a surface (numpy's functions and ufuncs, a ufunc's methods, the methods
  of every numpy object, the standard modules' functions): ``refuse_operands`` on each argument
  (an object array, or a list, tuple or deque holding one: ``out=(a,)``, a namedtuple, a
  learner's list subclass), ``refuse_results`` on what
  comes back (an object array is a plain ``np.ndarray``, never the learner's subclass);
- an attribute of an object array (or of an object scalar or record), however it is reached (on
  the array, through ``super()``, unbound on the class): ``check_attribute`` allows only
  ``OBJECT_ARRAY_ATTRIBUTES``, which read, reshape or copy;
- a write (item or attribute assignment, augmented assignment) by learner code:
  ``refuse_write``, so no element is freed while any loop holds a borrowed pointer to it;
- the array constructor: ``refuse_subclass`` keeps object arrays out of learner subclasses.

What stays allowed: building object arrays, reading and iterating them, Python's own
``sorted``/``max``/``sum`` on them (these hold real references), ``tolist()``/``astype()``, and
every numpy operation on numeric arrays.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from sandbox.policy.kinds import PLAIN_TYPES, numpy_dtype
from sandbox.policy.refusal import (
    OBJECT_ARRAY_SUBCLASS,
    OBJECT_ARRAY_UNCHANGED,
    ObjectArrayRefused,
    PolicyError,
    object_array_of_own_subclass,
    object_array_operand,
    sequence_that_redefines_reading,
)

# What learner code may read on an array of objects: its shape, a copy, a list, a reshaped view.
OBJECT_ARRAY_ATTRIBUTES = frozenset(
    """
    shape ndim size dtype T tolist item copy reshape ravel flatten transpose squeeze astype
    """.split()
)


def is_object_array(value: Any) -> bool:
    """An array, scalar or record that holds Python objects (by the dtype numpy sees)."""
    if type(value) is np.ndarray:  # numpy's own class: its dtype is the real one
        return bool(value.dtype.hasobject)
    dtype = numpy_dtype(value)
    return dtype is not None and dtype.hasobject


# The containers learner code can build that numpy reads as sequences of operands: lists and
# tuples (with their subclasses: a namedtuple, the learner's own) and deques.
SEQUENCES = (list, tuple, deque)
# How a sequence is read: a subclass that redefines one of these says what numpy reads itself.
_READ_PROTOCOL = ("__iter__", "__getitem__", "__len__")


def holds_objects(value: Any) -> bool:
    """An array (or record) of Python objects, or a sequence with one at its top level."""
    kind = type(value)
    if kind is list or kind is tuple:
        return any(is_object_array(item) for item in value if type(item) not in PLAIN_TYPES)
    for base in SEQUENCES:
        if isinstance(value, base):
            # The base class's own iteration, never a method of the learner's.
            items: Iterable[Any] = base.__iter__(value)  # type: ignore[arg-type]
            return any(is_object_array(item) for item in items if type(item) not in PLAIN_TYPES)
    return is_object_array(value)


def redefines_reading(value: Any) -> bool:
    """A sequence whose class redefines how it is read: numpy may read it through the learner's
    methods (a deque's items), which can answer differently from what was checked."""
    kind = type(value)
    if kind is list or kind is tuple or not isinstance(value, SEQUENCES):
        return False
    base = next(base for base in SEQUENCES if isinstance(value, base))
    return any(getattr(kind, name) is not getattr(base, name) for name in _READ_PROTOCOL)


def refuse_operands(
    what: str, args: Iterable[Any], keywords: Mapping[str, Any] | None = None
) -> None:
    """Refuse a call of ``what`` that would hand numpy (or trusted code) an object array:
    among ``args`` and the values of ``keywords``, directly or in a list or tuple."""
    # The common operands (numbers, numeric arrays) are told apart by their exact type alone;
    # anything else is asked the full question.
    for value in args:
        kind = type(value)
        if kind in PLAIN_TYPES or (kind is np.ndarray and not value.dtype.hasobject):
            continue
        if holds_objects(value):
            raise ObjectArrayRefused(object_array_operand(what))
        if redefines_reading(value):
            raise PolicyError(sequence_that_redefines_reading(what, kind.__name__))
    if keywords:
        refuse_operands(what, keywords.values())


def refuse_results(what: str, parts: Iterable[Any]) -> None:
    """Refuse results of ``what`` that are object arrays of a learner subclass (``astype``)."""
    for part in parts:
        kind = type(part)
        if kind is not np.ndarray and kind not in PLAIN_TYPES and is_object_array(part):
            raise PolicyError(object_array_of_own_subclass(what))


def check_attribute(obj: Any, name: str) -> None:
    """Refuse ``obj.name`` on an object array unless the attribute only reads or copies."""
    if name not in OBJECT_ARRAY_ATTRIBUTES and is_object_array(obj):
        raise ObjectArrayRefused(object_array_operand(f"ndarray.{name}"))


def refuse_write(obj: Any) -> None:
    """Refuse learner code's writes into an object array (and into a record, which only reads)."""
    if is_object_array(obj) or isinstance(obj, np.void):
        raise PolicyError(OBJECT_ARRAY_UNCHANGED)


def refuse_subclass(cls: type, dtype: np.dtype[Any]) -> None:
    """Refuse building an object array of a learner subclass of np.ndarray.

    A subclass brings the learner's own methods to code that writes items through the real
    ``__setitem__`` (``random.shuffle``): object arrays stay plain np.ndarray.
    """
    if dtype.hasobject and cls is not np.ndarray:
        raise PolicyError(OBJECT_ARRAY_SUBCLASS)
