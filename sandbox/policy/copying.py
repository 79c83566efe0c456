"""``import copy`` for learner code: ``copy.copy`` and ``copy.deepcopy`` of what learners copy.

The standard module is not offered: it rebuilds objects through ``__reduce_ex__``, ``copyreg``
and ``cls.__new__``, reading and writing attributes past the policy's guards. These copies know
the kinds learner code holds: plain data (numbers, strings, lists, tuples, dicts, sets), numpy
arrays and scalars, and instances of the learner's own classes. Anything else, the random
generators the judge hands in above all (their draws are counted), is refused with a sentence.
"""

from __future__ import annotations

from types import BuiltinFunctionType, FunctionType, MethodType
from typing import Any

import numpy as np

from sandbox.policy import refusal

# The module name learner code runs under (``namespace``): classes it defines carry it.
LEARNER_MODULE = "solution"
# Returned as they are, by both copies (as the standard module does): values that cannot
# change, and functions and classes, which a copied structure shares with the original.
_IMMUTABLE = (
    type(None), bool, int, float, complex, str, bytes, range, np.generic,
    FunctionType, BuiltinFunctionType, MethodType, type,
)  # fmt: skip


def _learner_instance(value: Any) -> bool:
    """An instance of a class the learner wrote, built on ``object`` alone."""
    mro = type(value).__mro__
    return all(cls is object or cls.__module__ == LEARNER_MODULE for cls in mro) and hasattr(
        value, "__dict__"
    )


def _refuse(value: Any) -> TypeError:
    kind = type(value).__name__
    generators = (np.random.Generator, np.random.RandomState)
    is_generator = isinstance(value, generators) or "generator" in kind.lower()
    return TypeError(refusal.copy_refused(kind, is_generator))


def shallow_copy(value: Any) -> Any:
    """``copy.copy``: a new container holding the same items."""
    if isinstance(value, _IMMUTABLE) or type(value) in (tuple, frozenset):
        return value
    if isinstance(value, np.ndarray):
        return np.ndarray.copy(value)  # numpy's copy, never a learner subclass's own copy()
    if type(value) in (list, dict, set):
        return type(value)(value)
    if _learner_instance(value):
        duplicate = object.__new__(type(value))
        duplicate.__dict__.update(value.__dict__)
        return duplicate
    raise _refuse(value)


def deep_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy``: containers copied all the way down; shared parts stay shared.

    A memo the learner passes is read, never written: the copies being built stay out of
    reach of learner code until they are finished.
    """
    if memo is not None and type(memo) is not dict:
        raise TypeError("deepcopy's memo must be a dict")
    return _deep_copy(value, {} if memo is None else dict(memo))


def _deep_copy(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, _IMMUTABLE):
        return value
    if id(value) in memo:
        return memo[id(value)]
    if isinstance(value, np.ndarray):
        # numpy's own copy (a learner subclass's copy() could hand back an array it holds):
        # the items below are written into this fresh array and nowhere else.
        duplicate = np.ndarray.copy(value)
        memo[id(value)] = duplicate
        if duplicate.dtype == object:
            for index, item in np.ndenumerate(value):
                duplicate[index] = _deep_copy(item, memo)
        return duplicate
    kind = type(value)
    if kind is list:
        new_list: list[Any] = []
        memo[id(value)] = new_list
        new_list.extend(_deep_copy(item, memo) for item in value)
        return new_list
    if kind is dict:
        new_dict: dict[Any, Any] = {}
        memo[id(value)] = new_dict
        for key, item in value.items():
            new_dict[_deep_copy(key, memo)] = _deep_copy(item, memo)
        return new_dict
    if kind in (tuple, set, frozenset):
        copied = kind(_deep_copy(item, memo) for item in value)
        memo[id(value)] = copied
        return copied
    if _learner_instance(value):
        instance = object.__new__(kind)
        memo[id(value)] = instance
        instance.__dict__.update(_deep_copy(dict(value.__dict__), memo))
        return instance
    raise _refuse(value)
