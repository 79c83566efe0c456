"""Default reprs without a memory address, for every object in the process.

CPython's default repr of an object, a function, a built-in method or a generator prints the
object's address (``<A object at 0x55d...>``), and so do numpy's ``Generator`` and
``RandomState``. An address tells learner code where to forge objects (the red team computed a
type's address from ``hash()``, which is why the policy has no ``id()`` and refuses an
address-valued ``hash()``). Every route to such a repr ends in the type's ``tp_repr`` slot:
``repr``, ``str``, ``format``, ``print``, f-strings and their ``!r``/``!s``/``!a``, ``%r``,
``str.format``, a container's repr of its items, numpy printing an object array, C code's
``%R`` in an error message (``[].index(f)``, a ``KeyError``). So the slot is where the address
is left out: wrapping the Python-level entry points would leave the C ones.

The types whose own repr prints the address are immutable, so ``hide_addresses`` clears their
immutable flag for the time of one ``setattr`` of ``__repr__`` and sets it back: CPython's own
``type.__setattr__`` then updates the slot of the type and of every subclass inheriting it, and
classes made later (the learner's) inherit the new one. The text is CPython's, without the
address part. No other field of the type is written, and the offset of the flags is checked
against ``PyType_GetFlags`` before anything is written.

Not here: code objects, frames and cells (their reprs show addresses and files) are
unreachable from learner code (``_`` names, ``gi_frame``, ``tb_frame``... are blocked).
"""

from __future__ import annotations

import ctypes
import types
from collections.abc import Callable
from typing import Any

import numpy as np

_IMMUTABLE_TYPE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE (Include/object.h)
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE
_type_module = type.__dict__["__module__"].__get__
_type_qualname = type.__dict__["__qualname__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_flags = type.__dict__["__flags__"].__get__


class _TypeHead(ctypes.Structure):
    """The start of CPython's PyTypeObject, up to ``tp_flags`` (Include/cpython/object.h)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("ob_size", ctypes.c_ssize_t),
        ("tp_name", ctypes.c_char_p),
        ("tp_basicsize", ctypes.c_ssize_t),
        ("tp_itemsize", ctypes.c_ssize_t),
        ("tp_dealloc", ctypes.c_void_p),
        ("tp_vectorcall_offset", ctypes.c_ssize_t),
        ("tp_getattr", ctypes.c_void_p),
        ("tp_setattr", ctypes.c_void_p),
        ("tp_as_async", ctypes.c_void_p),
        ("tp_repr", ctypes.c_void_p),
        ("tp_as_number", ctypes.c_void_p),
        ("tp_as_sequence", ctypes.c_void_p),
        ("tp_as_mapping", ctypes.c_void_p),
        ("tp_hash", ctypes.c_void_p),
        ("tp_call", ctypes.c_void_p),
        ("tp_str", ctypes.c_void_p),
        ("tp_getattro", ctypes.c_void_p),
        ("tp_setattro", ctypes.c_void_p),
        ("tp_as_buffer", ctypes.c_void_p),
        ("tp_flags", ctypes.c_ulong),
    ]


_FLAGS_OFFSET: int = _TypeHead.tp_flags.offset
_get_flags = ctypes.pythonapi.PyType_GetFlags
_get_flags.restype = ctypes.c_ulong
_get_flags.argtypes = [ctypes.py_object]


def _type_c_name(kind: type) -> str:
    """The type's ``tp_name``, as CPython's reprs print it (``numpy.ndarray``, ``list``)."""
    name: str = _type_name(kind)
    module = _type_module(kind)
    if _type_flags(kind) & _HEAP_TYPE or not isinstance(module, str) or module == "builtins":
        return name
    return f"{module}.{name}"


def _object_repr(self: object) -> str:
    """``object.__repr__``: ``<module.Class object>``."""
    kind = type(self)
    module = _type_module(kind)
    if isinstance(module, str) and module != "builtins":
        return f"<{module}.{_type_qualname(kind)} object>"
    return f"<{_type_c_name(kind)} object>"


def _function_repr(self: types.FunctionType) -> str:
    return f"<function {self.__qualname__}>"


def _builtin_repr(self: types.BuiltinFunctionType) -> str:
    bound = self.__self__
    if bound is None or isinstance(bound, types.ModuleType):
        return f"<built-in function {self.__name__}>"
    return f"<built-in method {self.__name__} of {_type_c_name(type(bound))} object>"


def _method_wrapper_repr(self: Any) -> str:
    return f"<method-wrapper {self.__name__!r} of {_type_c_name(type(self.__self__))} object>"


def _generator_repr(self: Any) -> str:
    return f"<{_type_name(type(self))} object {self.__qualname__}>"


def _memory_repr(self: memoryview) -> str:
    try:
        self.nbytes  # noqa: B018 (a released view refuses every read)
    except ValueError:
        return "<released memory>"
    return "<memory>"


def _named_function_repr(self: Any) -> str:
    """numpy's dispatchers: ``<function sum>``, as Python shows a function."""
    return f"<function {self.__name__}>"


def _cython_function_repr(self: Any) -> str:
    return f"<cyfunction {self.__qualname__}>"


def _without_address(self: Any) -> str:
    """numpy's generators: their ``str`` (``Generator(PCG64)``) is their repr but the address."""
    return str(self)


def _cython_function_type() -> type:
    return type(np.random.default_rng)


# The types whose own repr prints an address, and what replaces it.
_REPRS: tuple[tuple[Callable[[], type], Callable[[Any], str]], ...] = (
    (lambda: object, _object_repr),
    (lambda: types.FunctionType, _function_repr),
    (lambda: types.BuiltinFunctionType, _builtin_repr),
    (lambda: types.MethodWrapperType, _method_wrapper_repr),
    (lambda: types.GeneratorType, _generator_repr),
    (lambda: types.CoroutineType, _generator_repr),
    (lambda: types.AsyncGeneratorType, _generator_repr),
    (lambda: memoryview, _memory_repr),
    (lambda: type(np.sum), _named_function_repr),
    (_cython_function_type, _cython_function_repr),
    (lambda: np.random.Generator, _without_address),
    (lambda: np.random.RandomState, _without_address),
)


def _set_repr(kind: type, repr_: Callable[[Any], str]) -> None:
    flags = ctypes.c_ulong.from_address(id(kind) + _FLAGS_OFFSET)
    if flags.value != _get_flags(kind):
        # Another layout of PyTypeObject (another Python, a debug build): write nothing.
        raise RuntimeError(f"cannot hide addresses in reprs: unknown type layout ({kind!r})")
    saved = flags.value
    flags.value = saved & ~_IMMUTABLE_TYPE
    try:
        setattr(kind, "__repr__", repr_)  # noqa: B010 (mypy refuses the assignment spelled)
    finally:
        flags.value = saved


def hide_addresses() -> None:
    """Make every default repr in this process leave the address out (idempotent)."""
    for kind_of, repr_ in _REPRS:
        kind = kind_of()
        if kind.__dict__.get("__repr__") is not repr_:
            _set_repr(kind, repr_)
