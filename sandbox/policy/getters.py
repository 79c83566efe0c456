"""A library class's property, read off the class, as learner code may have it.

``np.iinfo.max``, ``Fraction.numerator``, ``NormalDist.mean`` or ``np.finfo.tiny`` read off the
class give the descriptor, and its ``fget`` (a cached_property's ``func``) is the library's own
Python function: called on any object, past every guard (``iinfo.max`` caches what it computes
from any object's ``.kind`` and ``.bits`` in numpy's own table). ``numpy_access`` hands out such
a descriptor through ``guarded_getter`` instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

PYTHON_GETTERS = (property, functools.cached_property)


def guarded_getter(
    descriptor: Any, owner: type, name: str, guard: Callable[[Callable[..., Any], str], Any]
) -> Any:
    """``descriptor`` with each of its functions passed through ``guard`` (with the name it is
    shown by) and taking instances of ``owner`` only (as a C class's getter refuses any other
    object)."""
    what = f"{owner.__name__}.{name}"

    def guarded(function: Any) -> Any:
        if function is None:
            return None
        checked = guard(function, what)

        def own_instances_only(instance: Any, *args: Any) -> Any:
            if not isinstance(instance, owner):
                raise TypeError(
                    f"{what} applies to {owner.__name__} objects, not to"
                    f" {type(instance).__name__!r}"
                )
            return checked(instance, *args)

        own_instances_only.__name__ = name
        own_instances_only.__qualname__ = what
        return own_instances_only

    if isinstance(descriptor, property):
        return property(
            guarded(descriptor.fget),
            guarded(descriptor.fset),
            guarded(descriptor.fdel),
            descriptor.__doc__,
        )
    cached = functools.cached_property(guarded(descriptor.func))
    cached.__set_name__(owner, name)
    return cached
