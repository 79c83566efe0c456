"""Imports are an allowlist: the modules learner code may import, checked when compiling (the
compiler) and again when the import runs (``import_module``, the ``__import__`` of its builtins).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from sandbox.policy import refusal
from sandbox.policy.attributes import learner_hasattr
from sandbox.policy.surfaces import Surface, numpy_surfaces, stdlib_surfaces


@functools.cache
def learner_modules() -> Mapping[str, Surface]:
    """Every module learner code may import, by the name it imports: what the compiler checks
    import statements against and ``import_module`` hands out. Built once per process; the
    surfaces are read-only, so every policy shares them."""
    return MappingProxyType({**numpy_surfaces(), **stdlib_surfaces()})


def import_refused(name: str) -> str:
    """Why ``import name`` is refused, in a learner's words, with what is available."""
    return refusal.import_refused(
        name, sorted(n for n in learner_modules() if not n.startswith("_"))
    )


def import_module(
    name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
) -> Any:
    """``__import__`` for learner code: a surface of an allowlisted module, or ImportError."""
    if type(fromlist) is list and fromlist in ([], ["__doc__"]) and level == 0:
        # PyImport_Import's signature (a list: [] on 3.11+, ['__doc__'] before): numpy's
        # C code importing its own helpers lazily (numpy._core._dtype for repr(dtype),
        # numpy._core._methods on the first ndarray.sum()). The frames above are the
        # learner's, but learner code cannot spell this call: '__import__' starts with an
        # underscore, which the compiler refuses, and import statements pass None/tuples.
        loaded = sys.modules.get(name)
        if loaded is not None and (name == "numpy" or name.startswith("numpy.")):
            return loaded
    if level != 0:
        raise ImportError(refusal.RELATIVE_IMPORT)
    modules = learner_modules()
    if name not in modules:
        raise ImportError(import_refused(name))
    if fromlist:
        surface = modules[name]
        for item in fromlist:
            if type(item) is str and item != "*" and not learner_hasattr(surface, item):
                # Python's own message would name '<unknown module name>': say what is meant.
                raise ImportError(refusal.not_available(f"{name}.{item}"))
        return surface
    return modules[name.split(".")[0]]
