"""The modules learner code can import, as surfaces: allowlisted parts of numpy and a few pure
standard modules.

A surface is a read-only namespace holding the allowed members of one module, never the module
itself: numpy's public attributes reach files, pickles, ctypes and the real builtins in many
ways, so learner code sees only what is listed here. Every callable on a surface is guarded
(``numpy_access.guard_surface``); ``imports`` hands the surfaces out.
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
from collections.abc import Callable, Iterable
from types import FunctionType, ModuleType
from typing import Any

import numpy as np

from sandbox.policy import memory
from sandbox.policy.copying import deep_copy, shallow_copy
from sandbox.policy.kinds import NUMERIC_SCALARS
from sandbox.policy.ndarray import NDARRAY
from sandbox.policy.numpy_access import CLASS_STAND_INS, guard_surface, vectorize
from sandbox.policy.refusal import MODULE_UNCHANGED, PolicyError, not_available
from sandbox.policy.scalars import scalar_classes


class Surface:
    """A read-only namespace exposing an allowlisted part of a module to learner code.

    The members live in the instance's ``__dict__``, so reading one is Python's own lookup (no
    learner code can name ``__dict__``); ``__getattr__`` only words the refusal of the rest.
    """

    __slots__ = ("_name", "_instead", "__dict__")

    def __init__(
        self, name: str, members: dict[str, Any], instead: dict[str, str] | None = None
    ) -> None:
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_instead", instead or {})  # what to write for a removed name
        object.__getattribute__(self, "__dict__").update(members)

    def __getattr__(self, attribute: str) -> Any:
        name = object.__getattribute__(self, "_name")
        instead = object.__getattribute__(self, "_instead").get(attribute, "")
        raise AttributeError(not_available(f"{name}.{attribute}", instead))

    def __setattr__(self, attribute: str, value: Any) -> None:
        raise PolicyError(MODULE_UNCHANGED)

    def __delattr__(self, attribute: str) -> None:
        raise PolicyError(MODULE_UNCHANGED)

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

# No set_state: the legacy generator takes any position into its state array and then reads
# outside it (heap pointers, then a crash). attributes.py blocks the name on
# RandomState instances too.
NUMPY_RANDOM_NAMES = """
    seed uniform rand randn random random_sample ranf sample randint random_integers normal
    standard_normal choice shuffle permutation binomial poisson exponential beta gamma
    multinomial dirichlet get_state default_rng RandomState Generator
""".split()

NUMPY_LINALG_NAMES = """
    norm inv pinv solve det eig eigh eigvals svd qr cholesky matrix_rank lstsq
""".split()


def numpy_surfaces() -> dict[str, Surface]:
    """numpy, numpy.random and numpy.linalg: the listed names, guarded."""
    random = Surface("numpy.random", guard_surface(_pick(np.random, NUMPY_RANDOM_NAMES)))
    linalg = Surface("numpy.linalg", guard_surface(_pick(np.linalg, NUMPY_LINALG_NAMES)))
    # np.empty and np.empty_like hand out leftover memory: zeroed ones stand in for them.
    initialised = {
        "empty": memory.empty,
        "empty_like": memory.empty_like,
        "pad": memory.pad,
        "vectorize": vectorize,
    }
    top = guard_surface({**_pick(np, NUMPY_NAMES), **initialised})
    # The scalar classes and np.dtype convert anything in C (object arrays, a learner object's
    # __float__ or .dtype): stand-ins that take plain data.
    top.update(random=random, linalg=linalg, ndarray=NDARRAY, **scalar_classes())
    return {"numpy": Surface("numpy", top), "numpy.random": random, "numpy.linalg": linalg}


def stdlib_surfaces() -> dict[str, Surface]:
    """The pure standard modules learners use, guarded, without what reaches the system."""

    def members_of(module: ModuleType, exclude: Iterable[str] = ()) -> dict[str, Any]:
        names = [n for n in dir(module) if not n.startswith("_") and n not in set(exclude)]
        # Skip modules a surface module imported (statistics.random, statistics.sys, ...).
        return {n: v for n, v in _pick(module, names).items() if not isinstance(v, ModuleType)}

    def guarded(
        name: str, members: dict[str, Any], instead: dict[str, str] | None = None
    ) -> Surface:
        # Real standard-library code works on what it is given with the real item access:
        # random.shuffle writes x[i] = x[j], operator.iadd writes, so none of them may be
        # handed an array of Python objects: the same guard as numpy's functions.
        return Surface(name, guard_surface(members, prefix=name), instead)

    def public(
        module: ModuleType, exclude: Iterable[str] = (), instead: dict[str, str] | None = None
    ) -> Surface:
        return guarded(module.__name__, members_of(module, {*exclude, *(instead or {})}), instead)

    return {
        "math": public(math),
        # Python's own generator: allowed (the exercise statement explains why it is the wrong
        # stream), minus the parts that reach the operating system.
        "random": public(py_random, exclude=("SystemRandom", "os", "sys")),
        # zip_longest and islice keep borrowed references across the learner's __next__, which
        # can re-enter them and free what they hold (CPython gh-142732);
        # count adds a learner step object's result to a total it no longer owns (gh-154670):
        # count takes numbers only.
        "itertools": Surface(
            "itertools",
            {
                **guard_surface(members_of(itertools, ITERTOOLS_REMOVED), prefix="itertools"),
                "count": count,
            },
            ITERTOOLS_REMOVED,
        ),
        # The real functools.wraps takes attribute names (assigned=, updated=) and reads and
        # writes them past the guard, e.g. updated=("__globals__",) swaps in real builtins.
        # No cmp_to_key: its C key objects call the comparison with borrowed references, and a
        # comparison that frees one (next(generator, key)) gave the real builtins.
        # No total_ordering: it writes comparisons into a class, which learner
        # classes may not have (compiler.REFUSED_SPECIAL_METHODS).
        "functools": guarded(
            "functools",
            {**_pick(functools, "reduce partial lru_cache cache".split()), "wraps": _wraps},
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
        # operator.attrgetter / methodcaller would look attributes up past the guard;
        # setitem and delitem would write items past writes.py (a list's slice from a learner
        # iterator wrote outside the list: gh-120384).
        "operator": public(
            operator, exclude=("attrgetter", "methodcaller"), instead=OPERATOR_REMOVED
        ),
        "typing": Surface(
            "typing",
            _pick(
                typing,
                "Any List Tuple Dict Set Optional Union Sequence Iterable Callable".split(),
            ),
        ),
        "__future__": Surface("__future__", _pick(__import__("__future__"), ["annotations"])),
    }


ITERTOOLS_REMOVED = {
    "zip_longest": "pad the shorter list, then zip: zip(a, b + [None] * (len(a) - len(b)))",
    "islice": "slice a list (list(it)[start:stop]) or count in a for loop and break",
}
OPERATOR_REMOVED = {
    "setitem": "write obj[key] = value",
    "delitem": "write del obj[key]",
}

# What itertools.count adds up: numbers whose addition runs no learner code.
COUNT_NUMBERS = frozenset({int, float, bool, complex} | NUMERIC_SCALARS)


def count(start: Any = 0, step: Any = 1) -> itertools.count[Any]:
    """itertools.count for learner code: start and step are numbers (int, float, complex, a
    numpy number), never an object of the learner's, whose ``__radd__`` re-entered the counter
    and freed its running total (CPython gh-154670)."""
    for name, value in (("start", start), ("step", step)):
        if type(value) not in COUNT_NUMBERS:
            raise PolicyError(
                not_available(
                    f"itertools.count with a {name} of type {type(value).__name__!r}",
                    "give it an int or a float",
                )
            )
    return itertools.count(start, step)


# type(itertools.count(1)) is the stand-in too, never the real class.
CLASS_STAND_INS[itertools.count] = count


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
