"""``np.ndarray`` as learner code sees it: the class stand-in, its subclasses' ``__new__``.

The real constructor builds an array over any buffer with any dtype, ``object`` included:
np.ndarray((1,), object, buffer=...) turns raw bytes into object pointers (a crash, or forged
objects), and without a buffer it hands out uninitialised memory. The stand-in builds arrays
with ``memory.new_array`` (zeroed, never over a buffer) and otherwise behaves like the class:
``isinstance``, ``issubclass``, ``class Sub(np.ndarray)`` (a real subclass, see ``classes``),
``type(a) is np.ndarray`` and ``np.ndarray.sum(a)`` all work.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sandbox.policy.memory import new_array
from sandbox.policy.numpy_access import guard_attribute, lookup_hidden


def array_new(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``__new__`` of learner subclasses of np.ndarray: zeroed, never over raw buffers."""
    return new_array(cls, args, kwargs)


class _ArrayClass:
    """The stand-in for ``np.ndarray`` (also what ``type(array)`` returns to learner code)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return new_array(np.ndarray, args, kwargs)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, np.ndarray)

    def __subclasscheck__(self, cls: Any) -> bool:
        return cls is self or issubclass(cls, np.ndarray)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (np.ndarray,)

    def __getattr__(self, attribute: str) -> Any:
        value = lookup_hidden(np.ndarray, attribute, "np.ndarray")
        return guard_attribute(np.ndarray, attribute, value)

    def __repr__(self) -> str:
        return "<class 'numpy.ndarray'>"


NDARRAY = _ArrayClass()
