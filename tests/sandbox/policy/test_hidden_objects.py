"""Objects the stand-ins hide never reach learner code through an exception.

Since Python 3.10 a failed attribute lookup's AttributeError carries ``obj``, the object it
searched: the stand-ins for np.ndarray and the ufuncs looked names up on the real objects, so
``except AttributeError as e: e.obj`` gave the raw class (arrays over any buffer, then forged
objects and the child's builtins) or a raw ufunc (object arrays as operands).
"""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.policy import Policy, PolicyError
from tests.sandbox.policy.learner import run, with_objects

STAND_INS = ["np.ndarray", "np.add", "np.maximum", "np", "np.random", "np.zeros(2)", "np.sum"]


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_a_failed_lookup_never_hands_out_what_it_searched(stand_in: str) -> None:
    source = (
        "def f():\n"
        "    try:\n"
        f"        {stand_in}.no_such_name\n"
        "    except AttributeError as e:\n"
        "        return e.obj\n"
    )
    with pytest.raises((AttributeError, PolicyError), match="obj"):
        run(source)


@pytest.mark.parametrize("stand_in", ["np.ndarray", "np.add"])
def test_the_stand_ins_own_misses_carry_neither_the_real_object_nor_its_error(
    stand_in: str,
) -> None:
    # Below the name rule: the stand-in's own AttributeError, seen from this (trusted) process.
    namespace = Policy().namespace()
    exec("import numpy as np\n", namespace)
    shown = eval(stand_in, {"np": namespace["np"]})
    with pytest.raises(AttributeError) as caught:
        shown.no_such_name  # noqa: B018
    assert caught.value.obj is not np.ndarray and caught.value.obj is not np.add
    assert caught.value.__context__ is None


def test_a_standard_class_never_writes_into_an_object_array() -> None:
    # random.shuffle was guarded, random.Random(1).shuffle was not: the swap went through.
    with pytest.raises(PolicyError):
        run("import random\n" + with_objects("random.Random(1).shuffle(a)\n    return a"))


def test_a_standard_class_still_works_on_plain_data() -> None:
    source = (
        "import random\n"
        "def f():\n    x = [1, 2, 3]\n    random.Random(1).shuffle(x)\n    return sorted(x)\n"
    )
    assert run(source) == [1, 2, 3]


@pytest.mark.parametrize(
    "call",
    [
        "np.add(np.array(['a']), np.array([1.5]))",  # no loop: args (ufunc, dtypes)
        "np.maximum(np.array(['a']), np.array([1.5]))",
        "np.add(np.ones(2), 1.5, out=np.zeros(2, dtype=np.int64))",  # casting: args hold it
        "np.array(['a']) + np.array([1.5])",  # an operator: no guarded call on the way
        "np.ones(2) - np.array(['x', 'y'])",
    ],
)
def test_a_numpy_error_never_carries_the_raw_ufunc(call: str) -> None:
    source = (
        f"def f():\n    try:\n        {call}\n    except TypeError as e:\n        return e.args\n"
    )
    args = run(source)
    assert all(isinstance(argument, str) for argument in args), args


def test_a_numpy_error_is_still_caught_as_what_it_is() -> None:
    source = (
        "def f():\n"
        "    try:\n"
        "        np.add(np.array(['a']), np.array([1.5]))\n"
        "    except TypeError as e:\n"
        "        return str(e)\n"
    )
    assert "ufunc 'add'" in run(source)


def test_vectorize_never_makes_an_object_array_of_the_learners_objects() -> None:
    source = (
        "class Mine:\n    pass\n"
        "def f():\n"
        "    make = np.vectorize(lambda k: Mine(), otypes=[object])\n"
        "    return make(np.zeros(1))\n"
    )
    with pytest.raises(PolicyError):
        run(source)


def test_a_learners_own_exception_passes_through_a_numpy_callback_unchanged() -> None:
    source = (
        "class Stop(Exception):\n    pass\n"
        "def f():\n"
        "    def boom(x):\n"
        "        raise Stop([1, 2])\n"
        "    try:\n"
        "        np.vectorize(boom, otypes=[float])(np.zeros(1))\n"
        "    except Stop as e:\n"
        "        return e.args[0]\n"
    )
    assert run(source) == [1, 2]


@pytest.mark.parametrize(
    "body",
    [
        "st = np.random.get_state()\n    np.random.set_state((st[0], st[1], -12))",
        "rs = np.random.RandomState(1)\n    rs.set_state(rs.get_state())",
        "getattr(np.random.RandomState(1), 'set_state')",
    ],
)
def test_the_legacy_generator_state_cannot_be_set(body: str) -> None:
    # set_state took any position into the state array and read outside it.
    with pytest.raises((AttributeError, PolicyError)):
        run(f"def f():\n    {body}\n    return np.random.randint(0, 2**32, size=12)\n")


def test_the_legacy_generator_state_can_still_be_read() -> None:
    assert run("def f():\n    return np.random.get_state()[0]\n") == "MT19937"


# A library class's property read off the class held numpy's (or fractions', statistics')
# getter as a plain function, called past every guard on any object.
LIBRARY_GETTERS = [
    "np.iinfo.max.fget",
    "type(np.iinfo(np.int8)).min.fget",
    "np.finfo.tiny.func",
    "fractions.Fraction.numerator.fget",
    "statistics.NormalDist.mean.fget",
]


@pytest.mark.parametrize("getter", LIBRARY_GETTERS)
def test_a_library_getter_takes_its_own_class_only(getter: str) -> None:
    source = (
        "import fractions, statistics\n"
        "class Posing:\n"
        "    kind = 'i'\n"
        "    bits = 3\n"
        "    key = 'i64'\n"
        "    dtype = np.dtype('f8')\n"
        f"def f():\n    return {getter}(Posing())\n"
    )
    with pytest.raises(TypeError, match="applies to .* objects, not to 'Posing'"):
        run(source)


def test_a_library_getter_still_reads_its_own_class() -> None:
    source = (
        "import fractions, statistics\n"
        "def f():\n"
        "    return (np.iinfo.max.fget(np.iinfo(np.int16)), np.finfo.tiny.func(np.finfo('f4')),\n"
        "            fractions.Fraction.numerator.fget(fractions.Fraction(3, 4)),\n"
        "            statistics.NormalDist.mean.fget(statistics.NormalDist(2.0, 1.0)),\n"
        "            np.iinfo(np.int8).max, np.finfo(np.float64).tiny)\n"
    )
    assert run(source) == (32767, np.finfo(np.float32).tiny, 3, 2.0, 127, np.finfo(np.float64).tiny)
