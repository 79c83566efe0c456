"""What learner code can import: allowlisted surfaces of numpy and a few pure standard modules.

A surface is a read-only namespace holding the allowed members of one module, never the module
itself: numpy's public attributes reach files, pickles, ctypes and the real builtins in many
ways, so learner code sees only what is listed here (and ``numpy_guards`` narrows some of it).
"""

from __future__ import annotations

import bisect
import collections
import fractions
import functools
import heapq
import itertools
import math
import operator
import random as py_random
import statistics
import typing
from collections.abc import Callable, Iterable, Mapping
from types import FunctionType, MappingProxyType, ModuleType
from typing import Any

import numpy as np

from sandbox.policy import memory as numpy_memory
from sandbox.policy.copying import deep_copy, shallow_copy
from sandbox.policy.memory import new_array
from sandbox.policy.object_arrays import guard_attribute, guard_surface, vectorize
from sandbox.policy.refusal import PolicyError


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
    take take_along_axis diagonal select pad rot90 fliplr flipud broadcast_to broadcast_arrays
    indices unravel_index ravel_multi_index triu_indices tril_indices diag_indices block dstack
    resize trim_zeros partition argpartition lexsort ptp nanmean nanstd nanvar nanmedian
    nanargmax nanargmin nanprod nancumsum nancumprod nanpercentile nanquantile cov corrcoef
    correlate gradient trapezoid polyfit polyval roots histogram2d histogram_bin_edges
    heaviside deg2rad rad2deg radians degrees cbrt fabs signbit copysign modf gcd lcm logaddexp2
    real imag conj angle isscalar isreal sinc vectorize apply_along_axis
    set_printoptions get_printoptions printoptions array2string array_str array_repr
    format_float_positional format_float_scientific
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


def array_new(cls: type, *args: Any, **kwargs: Any) -> Any:
    """``__new__`` of learner subclasses of np.ndarray: zeroed, never over raw buffers."""
    return new_array(cls, args, kwargs)


class _ArrayClass:
    """``np.ndarray`` as learner code sees it (also what ``type(array)`` returns).

    The real constructor builds an array over any buffer with any dtype, ``object`` included:
    np.ndarray((1,), object, buffer=...) turns raw bytes into object pointers (a crash, or
    forged objects), and without a buffer it hands out uninitialised memory. This stand-in
    refuses ``buffer=`` (``sandbox.numpy_memory``), zeroes, and otherwise behaves like the class:
    ``isinstance``, ``issubclass``, ``class Sub(np.ndarray)`` (a real subclass, see
    ``Policy.learner_class``), ``type(a) is np.ndarray`` and ``np.ndarray.sum(a)`` all work.
    """

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
        return guard_attribute(np.ndarray, attribute, getattr(np.ndarray, attribute))

    def __repr__(self) -> str:
        return "<class 'numpy.ndarray'>"


NDARRAY = _ArrayClass()


@functools.cache
def learner_modules() -> Mapping[str, Surface]:
    """Every module learner code may import, by the name it imports: what the compiler checks
    import statements against and the policy's import hands out. Built once per process; the
    surfaces are read-only, so every policy shares them."""
    return MappingProxyType({**numpy_surfaces(), **stdlib_surfaces()})


def import_refused(name: str) -> str:
    """Why ``import name`` is refused, in a learner's words, with what is available."""
    available = ", ".join(sorted(n for n in learner_modules() if not n.startswith("_")))
    return f"import of '{name}' is not allowed; available modules: {available}"


def numpy_surfaces() -> dict[str, Surface]:
    random = Surface("numpy.random", guard_surface(_pick(np.random, NUMPY_RANDOM_NAMES)))
    linalg = Surface("numpy.linalg", guard_surface(_pick(np.linalg, NUMPY_LINALG_NAMES)))
    # np.empty and np.empty_like hand out leftover memory: zeroed ones stand in for them.
    initialised = {
        "empty": numpy_memory.empty,
        "empty_like": numpy_memory.empty_like,
        "pad": numpy_memory.pad,
        "vectorize": vectorize,
    }
    top = guard_surface({**_pick(np, NUMPY_NAMES), **initialised})
    top.update(random=random, linalg=linalg, ndarray=NDARRAY)
    return {"numpy": Surface("numpy", top), "numpy.random": random, "numpy.linalg": linalg}


def stdlib_surfaces() -> dict[str, Surface]:
    def members_of(module: ModuleType, exclude: Iterable[str] = ()) -> dict[str, Any]:
        names = [n for n in dir(module) if not n.startswith("_") and n not in set(exclude)]
        # Skip modules a surface module imported (statistics.random, statistics.sys, ...).
        return {n: v for n, v in _pick(module, names).items() if not isinstance(v, ModuleType)}

    def guarded(name: str, members: dict[str, Any]) -> Surface:
        # Real standard-library code works on what it is given with the real item access:
        # random.shuffle writes x[i] = x[j], operator.setitem and iadd write, so none of them
        # may be handed an array of Python objects: the same guard as numpy's functions.
        return Surface(name, guard_surface(members, prefix=name))

    def public(module: ModuleType, exclude: Iterable[str] = ()) -> Surface:
        return guarded(module.__name__, members_of(module, exclude))

    return {
        "math": public(math),
        # Python's own generator: allowed (the exercise statement explains why it is the wrong
        # stream), minus the parts that reach the operating system.
        "random": public(py_random, exclude=("SystemRandom", "os", "sys")),
        "itertools": public(itertools),
        # The real functools.wraps takes attribute names (assigned=, updated=) and reads and
        # writes them past the guard, e.g. updated=("__globals__",) swaps in real builtins.
        "functools": guarded(
            "functools",
            {
                **_pick(
                    functools, "reduce partial lru_cache cache cmp_to_key total_ordering".split()
                ),
                "wraps": _wraps,
            },
        ),
        "collections": guarded(
            "collections",
            _pick(collections, "deque Counter defaultdict OrderedDict namedtuple".split()),
        ),
        # The standard copy rebuilds objects past the guards (__reduce_ex__, copyreg): ours
        # copies plain data, arrays and the learner's own objects, and nothing else.
        "copy": Surface("copy", {"copy": shallow_copy, "deepcopy": deep_copy}),
        "heapq": public(heapq),
        "bisect": public(bisect),
        "statistics": public(statistics),
        "fractions": Surface("fractions", {"Fraction": fractions.Fraction}),
        # operator.attrgetter / methodcaller would look attributes up past the guard.
        "operator": public(operator, exclude=("attrgetter", "methodcaller")),
        "typing": Surface(
            "typing",
            _pick(
                typing,
                "Any List Tuple Dict Set Optional Union Sequence Iterable Callable".split(),
            ),
        ),
        "__future__": Surface("__future__", _pick(__import__("__future__"), ["annotations"])),
    }


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
