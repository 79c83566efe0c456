"""The globals learner code runs with: its builtins, and the guards RestrictedPython's code calls.

``Policy`` puts the pieces together; each guard lives with its rule: attribute reads in
``attributes``, writes in ``writes``, classes in ``classes``, imports in ``imports``. The
builtins are the ones a learner uses, with ``getattr``/``hasattr``/``setattr``/``type`` and
``__import__`` replaced by guarded ones; ``print`` goes to the case's capped capture.
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from fractions import Fraction
from types import MethodType
from typing import Any

import numpy as np
from RestrictedPython.Guards import (
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from sandbox.policy import refusal
from sandbox.policy.attributes import learner_attribute, learner_getattr, learner_hasattr
from sandbox.policy.classes import LearnerClasses
from sandbox.policy.copying import LEARNER_MODULE
from sandbox.policy.imports import import_module, learner_modules
from sandbox.policy.kinds import NUMERIC_SCALARS
from sandbox.policy.ndarray import NDARRAY
from sandbox.policy.numpy_access import CLASS_STAND_INS
from sandbox.policy.refusal import PolicyError
from sandbox.policy.reprs import hide_addresses
from sandbox.policy.writes import Writes

BUILTIN_NAMES = """
    abs all any bin bool callable chr complex dict divmod enumerate filter float format
    frozenset hash hex int isinstance issubclass iter len list map max min next object
    oct ord pow property range repr reversed round set slice sorted staticmethod
    classmethod str sum super tuple zip None True False Ellipsis NotImplemented
    ArithmeticError AssertionError AttributeError Exception IndexError KeyError
    LookupError MemoryError NameError NotImplementedError OverflowError RecursionError
    RuntimeError StopIteration TypeError ValueError ZeroDivisionError FloatingPointError
    UnboundLocalError BaseException SystemExit KeyboardInterrupt GeneratorExit
""".split()


class Policy:
    """Builds the globals learner code runs with: guarded builtins, guards and imports."""

    def __init__(self) -> None:
        # The surfaces are built here, before the process is confined: building them looks up
        # module members, some of which import more (files Landlock would refuse later).
        self.modules = learner_modules()
        hide_addresses()  # before any learner class exists: theirs inherit the new repr
        self.classes = LearnerClasses()
        self.writes = Writes(self.classes)
        self.print_hook: Callable[[str], None] = lambda text: None

    def builtins(self) -> dict[str, Any]:
        """The learner's builtins: the everyday ones, and guarded ones for introspection."""
        table = {name: getattr(builtins, name) for name in BUILTIN_NAMES}
        table.update(
            __build_class__=builtins.__build_class__,
            __import__=import_module,
            getattr=learner_getattr,
            hasattr=learner_hasattr,
            setattr=self.writes.setattr,
            type=_type_of,
            hash=_hash,
        )
        return table

    def namespace(self) -> dict[str, Any]:
        """Fresh globals for one learner module."""
        writes = self.writes
        return {
            "__builtins__": self.builtins(),
            "__name__": LEARNER_MODULE,
            "__metaclass__": self.classes.build,
            "_getattr_": learner_attribute,
            "_getitem_": operator.getitem,
            "_getiter_": iter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_write_": writes.write,
            "_inplacevar_": writes.inplacevar,
            "_inplace_item_": writes.inplace_item,
            "_inplace_attribute_": writes.inplace_attribute,
            "_apply_": _apply,
            "_print_": self._printer,
        }

    def _printer(self, _getattr_: Any = None) -> _Printer:
        return _Printer(self)


class _Printer:
    """What RestrictedPython's ``print`` calls: text goes to the case's capped capture."""

    __slots__ = ("_policy",)

    def __init__(self, policy: Policy) -> None:
        self._policy = policy

    def _call_print(self, *objects: Any, sep: Any = " ", end: Any = "\n", **_: Any) -> None:
        sep = " " if sep is None else str(sep)
        end = "\n" if end is None else str(end)
        self._policy.print_hook(sep.join(str(item) for item in objects) + end)

    def __call__(self) -> str:
        return ""


def _type_of(obj: Any, *rest: Any) -> Any:
    if rest:
        raise PolicyError(refusal.TYPE_WITH_THREE_ARGUMENTS)
    kind = type(obj)
    if kind is np.ndarray:
        return NDARRAY  # type(a)(shape, object, buffer) would build an array over raw bytes
    if kind in CLASS_STAND_INS:
        return CLASS_STAND_INS[kind]  # type(np.float64(1))(objects) would convert anything
    if issubclass(kind, type):
        # type(SomeClass) is a metaclass (type itself): calling it with three arguments
        # would build classes with any '_' attribute (__repr__, __getattr__, __del__, ...).
        raise PolicyError(refusal.TYPE_OF_A_CLASS)
    if issubclass(kind, MethodType):
        # The class of a learner's bound method binds any object, and a method reads every
        # attribute it lacks off what it binds: type(H().m)(np.random.Generator, 1).permuted
        # was the raw method, which wrote into an object array (found while profiling the
        # guards, sixth session).
        raise PolicyError(refusal.BOUND_METHOD_CLASS)
    if issubclass(kind, memoryview):
        # The class, called on an object array, aliased its pointers as writable bytes: an
        # unguarded call past every numpy rule.
        raise PolicyError(refusal.MEMORYVIEW)
    return kind


# What hash() takes: the types whose hash is computed from their value. Every other object's
# (classes, functions, methods, None, a learner's instances: none defines __hash__, see
# compiler) is its memory address, from which the red team computed where to forge objects.
_VALUE_HASHED = frozenset(
    {bool, int, float, complex, str, bytes, range, Fraction} | NUMERIC_SCALARS
)
_CONTAINERS_HASHED = {tuple: tuple.__hash__, frozenset: frozenset.__hash__}


def _hash(obj: Any, /) -> int:
    """``hash`` in learner code: of numbers and strings, and of tuples and frozensets of them."""
    pending = [obj]
    while pending:  # no recursion: a deep tuple is hash()'s own affair (a crash of the child)
        item = pending.pop()
        kind = type(item)
        if kind in _VALUE_HASHED:
            continue
        if kind is tuple:
            pending.extend(item)
            continue
        container = next((base for base in _CONTAINERS_HASHED if isinstance(item, base)), None)
        if container is not None and kind.__hash__ is _CONTAINERS_HASHED[container]:
            pending.extend(container.__iter__(item))  # type: ignore[attr-defined]
            continue
        if kind.__hash__ is None:
            raise TypeError(f"unhashable type: {kind.__name__!r}")  # Python's own answer
        raise PolicyError(refusal.hash_refused(kind.__name__))
    return hash(obj)


def _apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)
