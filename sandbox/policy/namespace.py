"""The language policy learner code runs under: the guards RestrictedPython's code calls.

RestrictedPython is one layer, not the sandbox: the OS layers in ``confine`` hold even if this
one is bypassed. Its job is to make escapes hard *and* to keep ordinary learner code working:
loops, comprehensions, classes, ``x[i] += 1``, f-strings, ``print``, numpy broadcasting and
``np.random.*`` all run; imports are limited to an allowlist and numpy is an allowlisted
surface, not the module. Compiling is ``sandbox.compiler``; what can be imported is
``sandbox.surfaces``; this module holds the runtime guards and the learner's builtins.
"""

from __future__ import annotations

import _string
import builtins
import functools
import operator
import string
import sys
from collections.abc import Callable
from types import BuiltinMethodType, FunctionType, MethodType, ModuleType
from typing import Any

import numpy as np
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from sandbox.policy.copying import LEARNER_MODULE
from sandbox.policy.object_arrays import from_numpy, guard_attribute, immutable
from sandbox.policy.refusal import PolicyError
from sandbox.policy.surfaces import (
    NDARRAY,
    Surface,
    array_new,
    import_refused,
    learner_modules,
)

IMMUTABLE_ARRAY = (
    "arrays of Python objects (dtype=object) cannot be changed in the judge; build a new one "
    "with np.array([...]), or use a list"
)

# Attribute names refused on every object, whatever its type: they lead to files, pickles,
# raw memory or the interpreter's internals. ('capsule': a BitGenerator's PyCapsule holds no
# reference to it, and np.random.Generator(anything with .capsule) calls through the pointer,
# freed or not: a use-after-free with learner-controlled function pointers.)
BLOCKED_ATTRIBUTES = frozenset(
    {
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


_INPLACE = {
    "+=": operator.iadd,
    "-=": operator.isub,
    "*=": operator.imul,
    "/=": operator.itruediv,
    "//=": operator.ifloordiv,
    "%=": operator.imod,
    "**=": operator.ipow,
    "<<=": operator.ilshift,
    ">>=": operator.irshift,
    "|=": operator.ior,
    "^=": operator.ixor,
    "&=": operator.iand,
    "@=": operator.imatmul,
}


def _check_attribute(obj: Any, name: Any) -> None:
    """The rule of every attribute read by learner code, in code and in format fields."""
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if name.startswith("_") or name in BLOCKED_ATTRIBUTES:
        raise AttributeError(f"the attribute {name!r} is not available in the judge")
    if isinstance(obj, ModuleType):
        raise PolicyError("modules are only reachable through import")


class SafeFormatter(string.Formatter):
    """str.format for learners: fields follow the attribute rule; no item key starts with '_'."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attribute, key in rest:
            if is_attribute:
                _check_attribute(obj, key)
                obj = getattr(obj, key)
            elif isinstance(key, str) and key.startswith("_"):
                raise PolicyError(f"format field {field_name!r} is not allowed")
            else:
                obj = obj[key]
        return obj, first


_FORMATTER = SafeFormatter()


class Policy:
    """Builds the globals learner code runs with: guarded builtins, guards and imports."""

    def __init__(self) -> None:
        self.modules = learner_modules()
        self.learner_classes: set[type] = set()
        self.print_hook: Callable[[str], None] = lambda text: None

    # -- guards -------------------------------------------------------------------------

    def getattr(self, obj: Any, name: str, default: Any = ..., /) -> Any:
        if name == "__init__" and type(obj) is super:
            # super().__init__(...) in a learner's class: the parent's initialiser, bound to
            # the learner's own object (or object.__init__, a no-op, for anything else).
            return obj.__init__  # type: ignore[misc]
        _check_attribute(obj, name)
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
        value = getattr(obj, name) if default is ... else getattr(obj, name, default)
        return guard_attribute(obj, name, value)

    def hasattr(self, obj: Any, name: str, /) -> bool:
        try:
            self.getattr(obj, name)
        except (AttributeError, PolicyError):
            return False
        return True

    def write(self, obj: Any) -> Any:
        """Returns the object if learner code may assign to its items or attributes."""
        if isinstance(obj, (Surface, ModuleType)) or (
            isinstance(obj, type) and obj not in self.learner_classes
        ):
            raise PolicyError(f"cannot modify {type(obj).__name__} objects")
        if isinstance(obj, (FunctionType, MethodType)):
            raise PolicyError("cannot modify functions")
        if type(obj).__module__ == "typing":
            # typing.Sequence.index = f would patch collections.abc.Sequence itself.
            raise PolicyError("cannot modify typing objects")
        if immutable(obj):
            raise PolicyError(IMMUTABLE_ARRAY)
        if isinstance(obj, np.ndarray):
            return _ArrayWriter(obj)
        return obj

    def setattr(self, obj: Any, name: str, value: Any, /) -> None:
        if type(name) is not str or name.startswith("_"):
            raise AttributeError(f"cannot set the attribute {name!r}")
        setattr(self.write(obj), name, value)

    def inplace_item(self, obj: Any, key: Any, op: str, value: Any) -> None:
        self.write(obj)[key] = _INPLACE[op](obj[key], value)

    def inplace_attribute(self, obj: Any, name: str, op: str, value: Any) -> None:
        self.setattr(obj, name, _INPLACE[op](self.getattr(obj, name), value))

    def inplacevar(self, op: str, current: Any, value: Any) -> Any:
        if immutable(current):
            raise PolicyError(IMMUTABLE_ARRAY)
        return _INPLACE[op](current, value)

    def import_module(
        self, name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
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
            raise ImportError("relative imports are not available in the judge")
        if name not in self.modules:
            raise ImportError(import_refused(name))
        if fromlist:
            surface = self.modules[name]
            for item in fromlist:
                if type(item) is str and item != "*" and not self.hasattr(surface, item):
                    # Python's own message would name '<unknown module name>': say what is meant.
                    raise ImportError(f"{name}.{item} is not available in the judge")
            return surface
        return self.modules[name.split(".")[0]]

    def learner_class(self, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        for base in bases:
            if not isinstance(base, type):
                continue
            if from_numpy(base) and not issubclass(base, np.ndarray):
                # A subclass of a Generator, a dtype or a scalar type gets none of the learner's
                # use out of numpy and all of its internals (red-teaming: Generator subclasses).
                raise PolicyError(
                    f"classes cannot derive from numpy's {base.__name__} in the judge "
                    "(np.ndarray is the one numpy class to derive from)"
                )
            if issubclass(base, _NUMPY_SCALARS):
                # numpy converts these as plain numbers, past __array__, calling the learner's
                # __float__/__bool__ in the middle of its C loops.
                raise PolicyError(
                    f"classes cannot derive from {base.__name__} in the judge; wrap the value in "
                    "an attribute instead"
                )
        if any(isinstance(base, type) and issubclass(base, np.ndarray) for base in bases):
            overridden = sorted(_ARRAY_PROTOCOL.intersection(namespace))
            if overridden:
                # numpy calls these itself, in the middle of its C loops (a 0-d subclass in a
                # list is converted through __float__): an array subclass keeps numpy's own.
                raise PolicyError(
                    f"a subclass of np.ndarray cannot define {', '.join(overridden)} in the judge"
                )
            namespace = {**namespace, "__new__": array_new}  # no arrays over raw buffers
        else:
            # numpy never takes the learner's own objects: converting a list, it keeps borrowed
            # pointers into it while it calls the items' __len__/__getitem__ (a use after free
            # once those empty the list); __array__ stops it before any of the learner's code
            # runs, and __array_ufunc__ = None hands `array * obj` to the object's own __rmul__.
            namespace = {
                **namespace,
                "__array__": _not_an_array,
                "__array_ufunc__": None,
            }
        cls = type(name, bases, namespace)
        self.learner_classes.add(cls)
        return cls

    # -- the namespace ------------------------------------------------------------------

    def builtins(self) -> dict[str, Any]:
        names = """
            abs all any bin bool callable chr complex dict divmod enumerate filter float format
            frozenset hash hex int isinstance issubclass iter len list map max min next object
            oct ord pow property range repr reversed round set slice sorted staticmethod
            classmethod str sum super tuple zip None True False Ellipsis NotImplemented
            ArithmeticError AssertionError AttributeError Exception IndexError KeyError
            LookupError MemoryError NameError NotImplementedError OverflowError RecursionError
            RuntimeError StopIteration TypeError ValueError ZeroDivisionError FloatingPointError
            UnboundLocalError BaseException SystemExit KeyboardInterrupt GeneratorExit
        """.split()
        table = {name: getattr(builtins, name) for name in names}
        table.update(
            __build_class__=builtins.__build_class__,
            __import__=self.import_module,
            getattr=self.getattr,
            hasattr=self.hasattr,
            setattr=self.setattr,
            type=_type_of,
        )
        return table

    def namespace(self) -> dict[str, Any]:
        """Fresh globals for one learner module."""
        return {
            "__builtins__": self.builtins(),
            "__name__": LEARNER_MODULE,
            "__metaclass__": self.learner_class,
            "_getattr_": self.getattr,
            "_getitem_": operator.getitem,
            "_getiter_": iter,
            "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
            "_unpack_sequence_": guarded_unpack_sequence,
            "_write_": self.write,
            "_inplacevar_": self.inplacevar,
            "_inplace_item_": self.inplace_item,
            "_inplace_attribute_": self.inplace_attribute,
            "_apply_": _apply,
            "_print_": self._printer,
        }

    def _printer(self, _getattr_: Any = None) -> _Printer:
        return _Printer(self)


# Special methods numpy itself calls on an array (conversion, truth, length, items).
_ARRAY_PROTOCOL = frozenset(
    "__float__ __int__ __bool__ __len__ __getitem__ __setitem__ __delitem__ __iter__ "
    "__reversed__ __index__ __complex__".split()
)
# Python types numpy takes as scalars without asking for __array__.
_NUMPY_SCALARS = (int, float, complex, str, bytes)


def _not_an_array(self: Any, *args: Any, **kwargs: Any) -> Any:
    raise PolicyError(
        f"numpy cannot take objects of your own class {type(self).__name__} in the judge; "
        "give it numbers (or lists of numbers)"
    )


class _ArrayWriter:
    """What ``_write_`` gives learner code for a (numeric) array: its items, and ``shape``.

    Its other attributes (``dtype``, ``strides``) reinterpret the array's bytes in place, into
    structured records or overlapping views: ``a.astype``/``a.view`` build those, checked.
    """

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray) -> None:
        object.__setattr__(self, "_array", array)

    def __getitem__(self, key: Any) -> Any:  # a[i] += 1 reads through the same object
        return object.__getattribute__(self, "_array")[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        object.__getattribute__(self, "_array")[key] = value

    def __delitem__(self, key: Any) -> None:
        del object.__getattribute__(self, "_array")[key]

    def __setattr__(self, name: str, value: Any) -> None:
        array = object.__getattribute__(self, "_array")
        if name != "shape" and hasattr(np.ndarray, name):
            raise PolicyError(f"setting ndarray.{name} is not available in the judge")
        setattr(array, name, value)  # shape, or a learner subclass's own attribute

    def __delattr__(self, name: str) -> None:
        raise PolicyError(f"deleting ndarray.{name} is not available in the judge")


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


def _format_string(template: str, *args: Any, **kwargs: Any) -> str:
    return _FORMATTER.vformat(template, args, kwargs)


def _format_unbound(template: str, *args: Any, **kwargs: Any) -> str:
    if not isinstance(template, str):
        raise TypeError("str.format needs a str as its first argument")
    return _FORMATTER.vformat(template, args, kwargs)


_STR_FORMAT = str.format


def _type_of(obj: Any, *rest: Any) -> Any:
    if rest:
        raise PolicyError("type() with three arguments is not available; use a class statement")
    kind = type(obj)
    if kind is np.ndarray:
        return NDARRAY  # type(a)(shape, object, buffer) would build an array over raw bytes
    if issubclass(kind, type):
        # type(SomeClass) is a metaclass (type itself): calling it with three arguments
        # would build classes with any '_' attribute (__repr__, __getattr__, __del__, ...).
        raise PolicyError("type() of a class is not available in the judge")
    return kind


def _apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)
