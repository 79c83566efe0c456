"""Classes learner code defines: built by ``LearnerClasses.build`` (the ``__metaclass__`` of
learner modules), which keeps numpy away from the learner's own objects.

numpy converts lists and numbers in C loops that hold borrowed pointers while they call into
the objects they convert; learner code running there can free what numpy reads next. So numpy
never takes an instance of a learner class (``__array__`` refuses, and ``__array_ufunc__ =
None`` hands ``array * obj`` to the object's own ``__rmul__``); a class cannot derive from what
numpy takes as a number, nor from numpy's classes but np.ndarray; a subclass of np.ndarray
keeps numpy's own conversion and item protocol and is built zeroed (``ndarray.array_new``).
"""

from __future__ import annotations

import collections
import fractions
from typing import Any

import numpy as np

from sandbox.policy import refusal
from sandbox.policy.compiler import REFUSED_SPECIAL_METHODS
from sandbox.policy.ndarray import array_new
from sandbox.policy.numpy_access import from_numpy
from sandbox.policy.refusal import PolicyError

# Special methods numpy itself calls on an array (conversion, truth, length, items).
ARRAY_PROTOCOL = frozenset(
    "__float__ __int__ __bool__ __len__ __getitem__ __setitem__ __delitem__ __iter__ "
    "__reversed__ __index__ __complex__".split()
)
# Python types numpy takes as scalars without asking for __array__.
NUMPY_SCALARS = (int, float, complex, str, bytes)

# Standard classes whose comparisons read their operands through methods a subclass could
# override, from inside C code that holds borrowed references (a list comparison, a sort, a
# heapq or bisect step, deque.index): Fraction reads ``numerator`` and ``denominator`` of any
# Fraction, so it is not subclassed at all; a deque compares, and a
# Counter's comparisons iterate, through ``__iter__``. (OrderedDict, defaultdict, dict, list,
# tuple and sets compare their own storage.)
NO_SUBCLASS = (fractions.Fraction,)
COMPARED_THROUGH = {
    collections.deque: frozenset({"__iter__"}),
    collections.Counter: frozenset({"__iter__"}),
}


class LearnerClasses:
    """The classes one policy's learner code built (only these may be written to)."""

    def __init__(self) -> None:
        self._built: set[type] = set()

    def __contains__(self, cls: object) -> bool:
        return cls in self._built

    def build(self, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        """Build a learner class, refusing the bases and methods numpy would misuse."""
        refused = sorted(REFUSED_SPECIAL_METHODS.keys() & namespace.keys())
        if refused:
            # The compiler refuses these in a class body; this holds for any other way a
            # namespace could be made (rich comparisons, __hash__, __del__: see compiler).
            raise PolicyError(refusal.special_method_refused(refused[0]))
        array_subclass = any(
            isinstance(base, type) and issubclass(base, np.ndarray) for base in bases
        )
        if isinstance(namespace.get("dtype"), property) and not array_subclass:
            # numpy reads ``.dtype`` of any object it is asked to take as a dtype, comparing
            # one included (``a.dtype == obj``), then drops the error and answers NotImplemented:
            # learner code in the middle of a list comparison (as CPython gh-120298). An array
            # it never asks ("Cannot construct a dtype from an array"): see kinds.numpy_dtype.
            raise PolicyError(refusal.DTYPE_PROPERTY)
        if "__getitem__" in namespace and any(
            isinstance(base, type) and issubclass(base, dict) for base in bases
        ):
            # numpy reads a dict as a dtype spec through its __getitem__ (the same comparison).
            raise PolicyError(refusal.DICT_GETITEM)
        for base in bases:
            if not isinstance(base, type):
                continue
            if issubclass(base, NO_SUBCLASS):
                raise PolicyError(refusal.compared_base_refused(base.__name__))
            for compared, methods in COMPARED_THROUGH.items():
                overridden = sorted(methods.intersection(namespace))
                if overridden and issubclass(base, compared):
                    raise PolicyError(refusal.compared_through(compared.__name__, overridden[0]))
            if from_numpy(base) and not issubclass(base, np.ndarray):
                # A subclass of a Generator, a dtype or a scalar type gets none of the learner's
                # use out of numpy and all of its internals (red-teaming: Generator subclasses).
                raise PolicyError(refusal.numpy_base_refused(base.__name__))
            if issubclass(base, NUMPY_SCALARS):
                # numpy converts these as plain numbers, past __array__, calling the learner's
                # __float__/__bool__ in the middle of its C loops.
                raise PolicyError(refusal.number_base_refused(base.__name__))
        if array_subclass:
            overridden = sorted(ARRAY_PROTOCOL.intersection(namespace))
            if overridden:
                # numpy calls these itself, in the middle of its C loops (a 0-d subclass in a
                # list is converted through __float__): an array subclass keeps numpy's own.
                raise PolicyError(refusal.array_protocol_override(overridden))
            namespace = {**namespace, "__new__": array_new}  # no arrays over raw buffers
        else:
            # Converting a list, numpy keeps borrowed pointers into it while it calls the
            # items' __len__/__getitem__ (a use after free once those empty the list);
            # __array__ stops it before any of the learner's code runs.
            namespace = {**namespace, "__array__": _not_an_array, "__array_ufunc__": None}
        cls = type(name, bases, namespace)
        self._built.add(cls)
        return cls


def _not_an_array(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise PolicyError(refusal.own_object_to_numpy(type(self).__name__))
