"""Attribute reads by learner code: one rule for ``obj.name``, ``getattr`` and format fields.

No name starting with '_' (the compiler refuses them in code; this refuses them when spelled as
strings), none of ``BLOCKED_ATTRIBUTES``, no module reached as an attribute; what is read on a
numpy object is then narrowed by ``numpy_access.guard_attribute``. ``str.format`` is swapped for
a formatter whose fields follow the same rule. A name that passed the name rule is remembered,
so the commonest read (``tokens.append``, ``np.cumsum``) goes straight to what is left to ask.
"""

from __future__ import annotations

import _string
import functools
import string
from collections.abc import Mapping, Sequence
from types import BuiltinMethodType, MethodType, ModuleType
from typing import Any

import numpy as np
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from sandbox.policy import refusal
from sandbox.policy.numpy_access import (
    ARRAY,
    AS_IS,
    EACH_TIME,
    SORTED_CLASSES,
    guard_attribute,
    guard_sorted_attribute,
)
from sandbox.policy.refusal import PolicyError
from sandbox.policy.surfaces import Surface

_ARRAY_CLASS = np.ndarray

# Attribute names refused on every object, whatever its type: they lead to files, pickles,
# raw memory or the interpreter's internals. ('capsule': a BitGenerator's PyCapsule holds no
# reference to it, and np.random.Generator(anything with .capsule) calls through the pointer,
# freed or not: a use-after-free with learner-controlled function pointers.)
BLOCKED_ATTRIBUTES = frozenset(
    {
        # An AttributeError's ``obj``: the object the failed lookup searched, which may be one
        # the learner never holds (a stand-in's real ufunc or class).
        "obj",
        # The legacy generator's set_state takes any position and reads outside its state
        # array: on np.random and on RandomState instances alike.
        "set_state",
        "ctypes",
        "cffi",
        "ctypeslib",
        "tofile",
        "dump",
        "dumps",
        "load",
        "loads",
        "save",
        "savez",
        "savez_compressed",
        "savetxt",
        "loadtxt",
        "genfromtxt",
        "fromfile",
        "memmap",
        "DataSource",
        "lib",
        "f2py",
        "testing",
        "distutils",
        "os",
        "sys",
        "subprocess",
        "builtins",
        "from_address",
        "from_buffer",
        "from_buffer_copy",
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "f_back",
        "f_globals",
        "f_locals",
        "f_builtins",
        "tb_frame",
        "tb_next",
        "mro",
        "format_map",
        "capsule",
    }
    | INSPECT_ATTRIBUTES
)


def check_attribute(obj: Any, name: Any) -> None:
    """The rule of every attribute read by learner code, in code and in format fields."""
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if name.startswith("_") or name in BLOCKED_ATTRIBUTES:
        raise AttributeError(refusal.attribute_refused(name))
    if isinstance(obj, ModuleType):
        raise PolicyError(refusal.MODULE_ONLY_THROUGH_IMPORT)


class SafeFormatter(string.Formatter):
    """str.format for learners: fields follow the attribute rule; no item key starts with '_'."""

    def get_field(
        self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]
    ) -> tuple[Any, Any]:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            if is_attribute:
                check_attribute(obj, key)
                obj = getattr(obj, key)
            elif isinstance(key, str) and key.startswith("_"):
                raise PolicyError(refusal.format_field_refused(field_name))
            else:
                obj = obj[key]
        return obj, first


_FORMATTER = SafeFormatter()
_STR_FORMAT = str.format


# Names that passed ``check_attribute``'s name rule (which looks at the name alone), so that
# the commonest read, ``tokens.append`` or ``np.cumsum``, need not ask again. Bounded: learner
# code can make names without end.
_READABLE_NAMES: set[str] = set()
_READABLE_LIMIT = 4096


# What the shortcut finds for a class not sorted yet: never its class, so the rules are asked.
_UNSORTED = (None, EACH_TIME)


def learner_attribute(obj: Any, name: str, /) -> Any:
    """Every ``obj.name`` in learner code (RestrictedPython's ``_getattr_``): the commonest reads
    go straight to what is left to ask, the rest to the whole rule.

    ``name`` is a str: the compiled code's constant (learner code cannot name ``_getattr_``),
    or what ``learner_getattr`` checked."""
    if name in _READABLE_NAMES:
        cls = type(obj)
        # The classes read most (every np.x, every list and array method), by exact type:
        # sorted as below, and their instances cannot answer for their own class
        # (``_reports_its_own_class``; tests/sandbox/policy/test_fast_paths.py checks both).
        if cls is Surface or cls is list:
            return getattr(obj, name)
        if cls is _ARRAY_CLASS:
            return guard_sorted_attribute(ARRAY, obj, name, getattr(obj, name))
        entry = SORTED_CLASSES.get(cls if type(cls) is type else id(cls), _UNSORTED)
        if entry[0] is cls and obj.__class__ is cls:
            # A name already found readable, on an object of a class already sorted as not a
            # module, a class or super: only guard_attribute's rules are left to apply.
            kind = entry[1]
            if kind is AS_IS:
                return getattr(obj, name)
            if kind is not EACH_TIME:
                return guard_sorted_attribute(kind, obj, name, getattr(obj, name))
    return _read(obj, name, ...)


def learner_getattr(obj: Any, name: str, default: Any = ..., /) -> Any:
    """``getattr`` in learner code."""
    if default is ... and type(name) is str:
        return learner_attribute(obj, name)
    return _read(obj, name, default)


def _read(obj: Any, name: str, default: Any) -> Any:
    """The whole rule of ``getattr(obj, name[, default])`` (``default`` is ``...`` if none)."""
    if name == "__init__" and type(obj) is super:
        # super().__init__(...) in a learner's class: the parent's initialiser, bound to
        # the learner's own object (or object.__init__, a no-op, for anything else).
        return obj.__init__  # type: ignore[misc]
    while type(obj) is MethodType:
        # What a bound method lacks, and it lacks every name learner code may write, it reads
        # off what it binds (its __func__): the read is one on that, under its rules.
        obj = obj.__func__
    check_attribute(obj, name)
    if name == "format":
        if isinstance(obj, str):
            return functools.partial(_format_string, obj)
        # str.format reached through the class (str.format, type(s).format, a str
        # subclass, super()) would read '_' attributes in its fields: swap in the safe one.
        value = getattr(obj, name) if default is ... else getattr(obj, name, default)
        if value is _STR_FORMAT:
            return _format_unbound
        if type(value) is BuiltinMethodType and isinstance(value.__self__, str):
            return functools.partial(_format_string, value.__self__)
        return value
    if len(_READABLE_NAMES) < _READABLE_LIMIT:
        _READABLE_NAMES.add(name)  # it passed the name rule above, and it is not "format"
    value = getattr(obj, name) if default is ... else getattr(obj, name, default)
    return guard_attribute(obj, name, value)


def learner_hasattr(obj: Any, name: str, /) -> bool:
    """``hasattr`` in learner code: whether ``learner_getattr`` would give the attribute."""
    try:
        learner_getattr(obj, name)
    except (AttributeError, PolicyError):
        return False
    return True


def _format_string(template: str, *args: Any, **kwargs: Any) -> str:
    return _FORMATTER.vformat(template, args, kwargs)


def _format_unbound(template: str, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise TypeError("str.format needs a str as its first argument")
    return _FORMATTER.vformat(template, args, kwargs)
