"""The language policy learner code is compiled and run under (RestrictedPython).

RestrictedPython is one layer, not the sandbox: the OS layers in ``confine`` hold even if this
one is bypassed. Its job is to make escapes hard *and* to keep ordinary learner code working:
loops, comprehensions, classes, ``x[i] += 1``, f-strings, ``print``, numpy broadcasting and
``np.random.*`` all run; imports are limited to an allowlist and numpy is an allowlisted
surface, not the module.
"""

from __future__ import annotations

import _string
import ast
import builtins
import collections
import functools
import heapq
import itertools
import math
import operator
import random as py_random
import statistics
import string
import sys
from collections.abc import Callable, Iterable
from types import BuiltinMethodType, FunctionType, MethodType, ModuleType
from typing import Any

import numpy as np
from RestrictedPython import compile_restricted_exec
from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer

from sandbox.numpy_guards import guard_attribute, guard_surface

LEARNER_FILENAME = "solution.py"
HELPERS_FILENAME = "helpers.py"


class PolicyError(Exception):
    """Learner code tried something the judge does not allow (a clear, learner-facing message)."""


# Attribute names refused on every object, whatever its type: they lead to files, pickles,
# raw memory or the interpreter's internals. ('capsule': a BitGenerator's PyCapsule holds no
# reference to it, and np.random.Generator(anything with .capsule) calls through the pointer,
# freed or not: a use-after-free with learner-controlled function pointers.)
BLOCKED_ATTRIBUTES = frozenset(
    {
        "ctypes", "cffi", "ctypeslib", "tofile", "dump", "dumps", "load", "loads", "save",
        "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt", "fromfile", "memmap",
        "DataSource", "lib", "f2py", "testing", "distutils", "os", "sys", "subprocess",
        "builtins", "from_address", "from_buffer", "from_buffer_copy", "gi_frame", "gi_code",
        "cr_frame", "cr_code", "ag_frame", "ag_code", "f_back", "f_globals", "f_locals",
        "f_builtins", "tb_frame", "tb_next", "mro", "format_map", "capsule",
    }
    | INSPECT_ATTRIBUTES
)


class Surface:
    """A read-only namespace exposing an allowlisted part of a module to learner code."""

    __slots__ = ("_name", "_members")

    def __init__(self, name: str, members: dict[str, Any]) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_members", members)

    def __getattr__(self, attribute: str) -> Any:
        members = object.__getattribute__(self, "_members")
        if attribute in members:
            return members[attribute]
        name = object.__getattribute__(self, "_name")
        raise AttributeError(f"{name}.{attribute} is not available in the judge")

    def __setattr__(self, attribute: str, value: Any) -> None:
        raise PolicyError("modules cannot be modified")

    def __repr__(self) -> str:
        return f"<module '{object.__getattribute__(self, '_name')}' (judge surface)>"


def _pick(module: ModuleType, names: Iterable[str]) -> dict[str, Any]:
    return {name: getattr(module, name) for name in names if hasattr(module, name)}


NUMPY_NAMES = """
    array asarray asanyarray copy zeros ones empty full zeros_like ones_like empty_like full_like
    arange linspace logspace eye identity diag tri tril triu meshgrid
    concatenate stack vstack hstack column_stack append insert delete split array_split tile
    repeat reshape ravel transpose swapaxes moveaxis squeeze expand_dims atleast_1d atleast_2d
    flip roll where clip minimum maximum fmin fmax min max amin amax argmin argmax nanmin nanmax
    sum nansum cumsum prod cumprod mean average median std var percentile quantile
    abs absolute sqrt square exp exp2 expm1 log log2 log10 log1p logaddexp power float_power sign
    floor ceil round around rint trunc fix mod remainder divide true_divide floor_divide
    multiply add subtract negative reciprocal sin cos tan arcsin arccos arctan arctan2 sinh cosh
    tanh hypot isclose allclose isnan isinf isfinite nan_to_num array_equal array_equiv
    equal not_equal less less_equal greater greater_equal logical_and logical_or logical_not
    logical_xor any all count_nonzero nonzero flatnonzero argwhere searchsorted sort argsort
    unique diff ediff1d dot vdot matmul outer inner einsum tensordot cross trace histogram
    bincount digitize interp convolve isin in1d setdiff1d intersect1d union1d
    shape size ndim result_type promote_types can_cast finfo iinfo errstate
    ndarray dtype generic number integer signedinteger unsignedinteger floating complexfloating
    bool_ int8 int16 int32 int64 uint8 uint16 uint32 uint64 intp float16 float32 float64
    complex64 complex128 newaxis nan inf pi e euler_gamma
""".split()

NUMPY_RANDOM_NAMES = """
    seed uniform rand randn random random_sample ranf sample randint random_integers normal
    standard_normal choice shuffle permutation binomial poisson exponential beta gamma
    multinomial dirichlet get_state set_state default_rng RandomState Generator
""".split()

NUMPY_LINALG_NAMES = """
    norm inv pinv solve det eig eigh eigvals svd qr cholesky matrix_rank lstsq
""".split()


def _refuse_buffer(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    buffer = kwargs["buffer"] if "buffer" in kwargs else (args[2] if len(args) > 2 else None)
    if buffer is not None:
        raise PolicyError(
            "np.ndarray(..., buffer=...) is not available in the judge; use np.array or np.zeros"
        )


def _array_new(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``__new__`` of learner subclasses of np.ndarray: no arrays over raw buffers."""
    _refuse_buffer(args, kwargs)
    return np.ndarray.__new__(cls, *args, **kwargs)


class _ArrayClass:
    """``np.ndarray`` as learner code sees it (also what ``type(array)`` returns).

    The real constructor builds an array over any buffer with any dtype, ``object`` included:
    np.ndarray((1,), object, buffer=...) turns raw bytes into object pointers (a crash, or
    forged objects). This stand-in refuses ``buffer=`` and otherwise behaves like the class:
    ``isinstance``, ``issubclass``, ``class Sub(np.ndarray)`` (a real subclass, see
    ``Policy.learner_class``), ``type(a) is np.ndarray`` and ``np.ndarray.sum(a)`` all work.
    """

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        _refuse_buffer(args, kwargs)
        return np.ndarray(*args, **kwargs)

    def __instancecheck__(self, obj: Any) -> bool:
        return isinstance(obj, np.ndarray)

    def __subclasscheck__(self, cls: Any) -> bool:
        return cls is self or issubclass(cls, np.ndarray)

    def __mro_entries__(self, bases: tuple[Any, ...]) -> tuple[type, ...]:
        return (np.ndarray,)

    def __getattr__(self, attribute: str) -> Any:
        return guard_attribute(np.ndarray, attribute, getattr(np.ndarray, attribute))

    def __repr__(self) -> str:
        return "<class 'numpy.ndarray'>"


NDARRAY = _ArrayClass()
_NDARRAY_RESIZE = np.ndarray.resize


def _numpy_surface() -> dict[str, Surface]:
    random = Surface("numpy.random", _pick(np.random, NUMPY_RANDOM_NAMES))
    linalg = Surface("numpy.linalg", _pick(np.linalg, NUMPY_LINALG_NAMES))
    top = guard_surface(_pick(np, NUMPY_NAMES))
    top.update(random=random, linalg=linalg, ndarray=NDARRAY)
    return {"numpy": Surface("numpy", top), "numpy.random": random, "numpy.linalg": linalg}


def _stdlib_surface() -> dict[str, Surface]:
    def public(module: ModuleType, exclude: Iterable[str] = ()) -> Surface:
        names = [n for n in dir(module) if not n.startswith("_") and n not in set(exclude)]
        # Skip modules a surface module imported (statistics.random, statistics.sys, ...).
        members = {n: v for n, v in _pick(module, names).items() if not isinstance(v, ModuleType)}
        return Surface(module.__name__, members)

    return {
        "math": public(math),
        # Python's own generator: allowed (the exercise statement explains why it is the wrong
        # stream), minus the parts that reach the operating system.
        "random": public(py_random, exclude=("SystemRandom", "os", "sys")),
        "itertools": public(itertools),
        # The real functools.wraps takes attribute names (assigned=, updated=) and reads and
        # writes them past the guard, e.g. updated=("__globals__",) swaps in real builtins.
        "functools": Surface(
            "functools",
            {**_pick(functools, "reduce partial lru_cache cache cmp_to_key total_ordering".split()),
             "wraps": _wraps},
        ),
        "collections": Surface(
            "collections",
            _pick(collections, "deque Counter defaultdict OrderedDict namedtuple".split()),
        ),
        "heapq": public(heapq),
        "bisect": public(__import__("bisect")),
        "statistics": public(statistics),
        "fractions": Surface("fractions", {"Fraction": __import__("fractions").Fraction}),
        # operator.attrgetter / methodcaller would look attributes up past the guard.
        "operator": public(operator, exclude=("attrgetter", "methodcaller")),
        "typing": Surface(
            "typing",
            _pick(
                __import__("typing"),
                "Any List Tuple Dict Set Optional Union Sequence Iterable Callable".split(),
            ),
        ),
        "__future__": Surface("__future__", _pick(__import__("__future__"), ["annotations"])),
    }


class LearnerTransformer(RestrictingNodeTransformer):
    """RestrictedPython's transformer, plus augmented assignment of items and attributes.

    ``x[i] += 1`` and ``self.n += 1`` are everyday learner code that RestrictedPython refuses;
    they are rewritten into calls of guarded helpers that read, combine and write back.
    """

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        target = node.target
        if isinstance(target, ast.Name):
            return super().visit_AugAssign(node)
        node = self.node_contents_visit(node)
        target = node.target
        operator_text = ast.Constant(_OPERATOR_TEXT[type(node.op)])
        if isinstance(target, ast.Subscript):
            call = ast.Call(
                func=ast.Name("_inplace_item_", ast.Load()),
                args=[target.value, target.slice, operator_text, node.value],
                keywords=[],
            )
        elif isinstance(target, ast.Attribute):
            self.check_name(node, target.attr)
            call = ast.Call(
                func=ast.Name("_inplace_attribute_", ast.Load()),
                args=[target.value, ast.Constant(target.attr), operator_text, node.value],
                keywords=[],
            )
        else:  # pragma: no cover - the grammar allows nothing else
            self.error(node, "unsupported augmented assignment")
            return node
        statement = ast.Expr(value=call)
        ast.copy_location(statement, node)
        ast.fix_missing_locations(statement)
        return statement


_OPERATOR_TEXT = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=",
    ast.Mod: "%=", ast.Pow: "**=", ast.LShift: "<<=", ast.RShift: ">>=", ast.BitOr: "|=",
    ast.BitXor: "^=", ast.BitAnd: "&=", ast.MatMult: "@=",
}
_INPLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "<<=": operator.ilshift, ">>=": operator.irshift, "|=": operator.ior, "^=": operator.ixor,
    "&=": operator.iand, "@=": operator.imatmul,
}


class CompileFailure(Exception):
    """The learner's code does not compile, or the policy refuses it; carries a line number."""

    def __init__(self, message: str, line: int | None, refused: bool) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.refused = refused


def compile_learner(source: str, filename: str = LEARNER_FILENAME) -> Any:
    """Compile learner code under the policy; raise CompileFailure with a learner-facing text."""
    try:
        result = compile_restricted_exec(source, filename=filename, policy=LearnerTransformer)
    except SyntaxError as exc:  # raised directly by some parser errors
        raise CompileFailure(f"{exc.msg}", exc.lineno, refused=False) from None
    except (RecursionError, MemoryError):
        raise CompileFailure(
            "your code is nested too deeply for the compiler", None, refused=False
        ) from None
    except ValueError as exc:  # e.g. source with NUL bytes
        raise CompileFailure(str(exc), None, refused=False) from None
    if result.errors:
        first = result.errors[0]
        line = _line_of(first)
        # IndentationError and TabError are SyntaxErrors too: a compile error, not a refusal.
        syntax = _strip_line_prefix(first).startswith(
            ("SyntaxError", "IndentationError", "TabError")
        )
        return_text = "; ".join(_strip_line_prefix(error) for error in result.errors[:3])
        raise CompileFailure(return_text, line, refused=not syntax)
    return result.code


def _line_of(error: str) -> int | None:
    # RestrictedPython formats errors as "Line 3: ..." (policy) or "Line 3: SyntaxError: ...".
    if error.startswith("Line "):
        head = error[5:].split(":", 1)[0]
        if head.isdigit():
            return int(head)
    return None


def _strip_line_prefix(error: str) -> str:
    if error.startswith("Line ") and ":" in error:
        return error.split(":", 1)[1].strip()
    return error


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
        self.modules: dict[str, Surface] = {**_numpy_surface(), **_stdlib_surface()}
        self.learner_classes: set[type] = set()
        self.print_hook: Callable[[str], None] = lambda text: None

    # -- guards -------------------------------------------------------------------------

    def getattr(self, obj: Any, name: str, default: Any = ..., /) -> Any:
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
        if name == "resize":
            value = getattr(obj, name) if default is ... else getattr(obj, name, default)
            if value is _NDARRAY_RESIZE or (
                type(value) is BuiltinMethodType and isinstance(value.__self__, np.ndarray)
            ):
                # resize(refcheck=False) frees the data under every view of the array: the
                # views then read and write freed memory (object arrays: fake pointers).
                raise PolicyError(
                    "ndarray.resize is not available in the judge; build a new array instead"
                )
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
            raise ImportError(
                f"import of '{name}' is not allowed; available modules: "
                + ", ".join(sorted(n for n in self.modules if not n.startswith("_")))
            )
        if fromlist:
            return self.modules[name]
        return self.modules[name.split(".")[0]]

    def learner_class(self, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
        if any(isinstance(base, type) and issubclass(base, np.ndarray) for base in bases):
            namespace = {**namespace, "__new__": _array_new}  # no arrays over raw buffers
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
            "__name__": "solution",
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


def _wraps(wrapped: Any) -> Callable[[Any], Any]:
    """functools.wraps for learner decorators: copies the name and docstring, nothing else."""

    def decorate(wrapper: Any) -> Any:
        if isinstance(wrapper, FunctionType):
            for name in ("__name__", "__qualname__", "__doc__"):
                value = getattr(wrapped, name, None)
                if isinstance(value, str):
                    setattr(wrapper, name, value)
        return wrapper

    return decorate


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
