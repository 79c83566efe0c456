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
from typing import Any

import numpy as np
from RestrictedPython.Guards import (
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
)

from sandbox.policy import refusal
from sandbox.policy.attributes import learner_getattr, learner_hasattr
from sandbox.policy.classes import LearnerClasses
from sandbox.policy.copying import LEARNER_MODULE
from sandbox.policy.imports import import_module, learner_modules
from sandbox.policy.ndarray import NDARRAY
from sandbox.policy.refusal import PolicyError
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
        )
        return table

    def namespace(self) -> dict[str, Any]:
        """Fresh globals for one learner module."""
        writes = self.writes
        return {
            "__builtins__": self.builtins(),
            "__name__": LEARNER_MODULE,
            "__metaclass__": self.classes.build,
            "_getattr_": learner_getattr,
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
    if issubclass(kind, type):
        # type(SomeClass) is a metaclass (type itself): calling it with three arguments
        # would build classes with any '_' attribute (__repr__, __getattr__, __del__, ...).
        raise PolicyError(refusal.TYPE_OF_A_CLASS)
    return kind


def _apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)
