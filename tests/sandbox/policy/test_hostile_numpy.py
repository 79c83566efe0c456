"""Hostile learner code against the real judge: numpy's submodules, file APIs, raw memory and
object arrays (see hostile.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import (
    SIGNATURE,
    assert_first_case_stopped,
    assert_nothing_ran,
    dir_listing,
    grade,
    on_first_case,
)

# -- numpy: submodules, file APIs, raw memory -----------------------------------------------

NUMPY_ESCAPES = {
    "np.ctypeslib": ("np.ctypeslib.as_array(np.zeros(1))", "ctypeslib"),
    "np.lib.format": ("np.lib.format.write_array(PATH, np.zeros(1))", "'lib'"),
    "np.testing": ("np.testing.assert_equal(1, 1)", "testing"),
    "np.f2py": ("np.f2py.compile('x', modulename='m')", "f2py"),
    "np.core": ("np.core.multiarray.array([1])", "numpy.core"),
    "np.load": ("np.load(PATH, allow_pickle=True)", "load"),
    "np.save": ("np.save(PATH, np.zeros(2))", "save"),
    "np.savetxt": ("np.savetxt(PATH, np.zeros(2))", "savetxt"),
    "np.fromfile": ("np.fromfile(PATH)", "fromfile"),
    "np.memmap": ("np.memmap(PATH, mode='w+', shape=(4,))", "memmap"),
    "np.loadtxt": ("np.loadtxt(PATH)", "loadtxt"),
    "np.genfromtxt": ("np.genfromtxt(PATH)", "genfromtxt"),
    "np.fromregex": ("np.fromregex(PATH, 'x', [('a', float)])", "fromregex"),
    "np.DataSource": ("np.DataSource().open(PATH, 'w')", "DataSource"),
    "arr.tofile": ("np.zeros(2).tofile(PATH)", "tofile"),
    "arr.dump": ("np.zeros(2).dump(PATH)", "dump"),
    "arr.dumps": ("np.zeros(2).dumps()", "dumps"),
    "arr.ctypes": ("np.zeros(2).ctypes.data", "ctypes"),
    "ndarray.tofile unbound": ("np.ndarray.tofile(np.zeros(2), PATH)", "tofile"),
    "bit_generator.ctypes": ("np.random.default_rng(0).bit_generator.ctypes", "ctypes"),
    "bit_generator.cffi": ("np.random.default_rng(0).bit_generator.cffi", "cffi"),
    "getattr(np, 'lib')": ("getattr(np, 'lib').format.open_memmap(PATH, mode='w+')", "'lib'"),
    "getattr(arr, 'tofile')": ("getattr(np.zeros(2), 'tofile')(PATH)", "tofile"),
    "from numpy import ctypeslib": ("from numpy import ctypeslib", "ctypeslib"),
    "from numpy import testing": ("from numpy import testing", "testing"),
    "numpy.random module attributes": ("np.random.mtrand", "mtrand"),
}


@pytest.mark.parametrize("name", list(NUMPY_ESCAPES))
def test_numpy_escape_routes_are_refused(hostile_judge: Judge, open_dir: Path, name: str) -> None:
    call, needle = NUMPY_ESCAPES[name]
    target = open_dir / f"numpy-{list(NUMPY_ESCAPES).index(name)}.npy"
    before = dir_listing(open_dir)
    report, _ = grade(hostile_judge, on_first_case(call.replace("PATH", repr(str(target)))))
    assert_first_case_stopped(report, Verdict.runtime_error, needle)
    assert not target.exists()
    assert dir_listing(open_dir) == before


# Submodules named in an import statement are refused when compiling (the dotted name as a
# whole is checked against the allowlist), so nothing of the submission runs.
NUMPY_SUBMODULE_IMPORTS = [
    "import numpy.ctypeslib", "from numpy.lib import format", "import numpy.f2py",
    "import numpy.distutils", "import numpy.lib.stride_tricks", "import numpy.random.mtrand",
    "from numpy.linalg.linalg import _umath_linalg", "import numpy.testing as npt",
]  # fmt: skip


@pytest.mark.parametrize("statement", NUMPY_SUBMODULE_IMPORTS)
def test_numpy_submodule_imports_are_refused_when_compiling(
    hostile_judge: Judge, statement: str
) -> None:
    report, _ = grade(hostile_judge, on_first_case(statement + "\nreturn [], 0"))
    module = statement.split()[1]
    assert_nothing_ran(report, Verdict.rejected, f"import of '{module}' is not allowed")


# -- numpy: raw memory ----------------------------------------------------------------------

MEMORY_TRICKS = {
    # an object array over raw bytes: every 8 bytes become a PyObject pointer
    "ndarray over a buffer, object dtype": "np.ndarray((1,), object, np.ones(1))",
    "ndarray over a buffer, keywords": (
        "np.ndarray(shape=(10**6,), dtype=np.float64, buffer=np.zeros(1))"
    ),
    "type(array) over a buffer": "type(np.zeros(1))((1,), object, np.ones(1))",
    "ndarray subclass over a buffer": """
        class Sub(np.ndarray):
            pass
        Sub((1,), object, np.ones(1))
    """,
    "functools.partial of ndarray": """
        import functools
        functools.partial(np.ndarray, (1,), object, np.ones(1))()
    """,
    # resize(refcheck=False) frees the data under the views: they read freed memory
    "resize under a view": """
        a = np.zeros(4, dtype=object)
        view = a[:]
        a.resize(10**6, refcheck=False)
        return [repr(view)], 0
    """,
    "unbound resize": "np.ndarray.resize(np.zeros(4), 10**6, refcheck=False)",
    # a bit generator's capsule holds no reference to it: Generator(fake) calls freed pointers
    "bit generator capsule": """
        def capsule_of_a_dead_generator():
            return np.random.default_rng(0).bit_generator.capsule
        class Fake:
            pass
        fake = Fake()
        setattr(fake, "capsule", capsule_of_a_dead_generator())  # (fake.capsule = ...: rejected)
        fake.lock = np.random.default_rng(1).bit_generator.lock
        junk = [b"A" * n for n in range(100, 200) for _ in range(50)]
        return [np.random.Generator(fake).random()], 0
    """,
    "view as object": "np.zeros(4).view(object)",
    "field of another type": "np.zeros(2).getfield(object, 0)",
}


@pytest.mark.parametrize("name", list(MEMORY_TRICKS))
def test_numpy_raw_memory_tricks_are_refused(hostile_judge: Judge, name: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(MEMORY_TRICKS[name]))
    assert_first_case_stopped(report, Verdict.runtime_error)
    message = report.tests[0].message or ""
    assert "segmentation" not in message  # refused by the policy or numpy, not a crash
    assert "Error" in message


# -- numpy: object arrays -------------------------------------------------------------------

# items frees them mid-sort (use after free: a crash, or a freed object read as another).
# Learner classes cannot define comparisons, but a Fraction's comparison reads the
# other's ``denominator``, which a subclass's property answers: learner code all the same.
REENTRANT_COMPARISON = """
    from fractions import Fraction
    calls = [0]
    keys = [None]
    class Key(Fraction):
        @property
        def denominator(self):
            calls[0] += 1
            if calls[0] % 20 == 0:
                for i in range(len(keys)):
                    keys[i] = Key(-i)
                junk = [b"A" * 40 for _ in range(20000)]
            return 1
    keys = np.array([Key((i * 7919) % 101) for i in range(101)], dtype=object)
    OPERATION
    return [], 0
"""


@pytest.mark.parametrize("operation", ["keys.sort()", "np.argmax(keys)"])
def test_a_reentrant_comparison_in_an_object_sort_is_contained(
    hostile_judge: Judge, operation: str
) -> None:
    report, _ = grade(
        hostile_judge, on_first_case(REENTRANT_COMPARISON.replace("OPERATION", operation))
    )
    # Whatever the freed memory does, it is this case's error (or its wrong answer), never a
    # pass, and the other cases run in fresh children.
    assert report.verdict in (Verdict.runtime_error, Verdict.wrong_answer)
    assert_first_case_stopped(report, report.verdict)


@pytest.mark.parametrize("operation", ["keys.sort()", "np.argmax(keys)"])
def test_a_reentrant_comparison_in_an_object_sort_is_refused(
    hostile_judge: Judge, operation: str
) -> None:
    report, _ = grade(
        hostile_judge, on_first_case(REENTRANT_COMPARISON.replace("OPERATION", operation))
    )
    assert_first_case_stopped(report, Verdict.runtime_error, "in the judge")


# maximum/minimum/fmax/fmin/clip return one operand after calling its __ge__/__le__, and
# logical_and/logical_or after its __bool__: a method that drops the array's reference frees the
# object numpy returns next (the red team turned this into the real builtins).
SELECTING_UAF = """
    class Freer:
        def __bool__(self):
            a[0] = 0
            return False
    a = np.array([Freer()], dtype=object)
    b = np.array([Freer()], dtype=object)
    r = OPERATION
    junk = [bytes(47) for _ in range(100)]
    print(type(r[0]))
    return [], 0
"""


@pytest.mark.parametrize(
    "operation",
    ["np.maximum(a, b)", "np.fmin(a, b)", "np.clip(a, b, b)", "np.logical_or(a, b)"],
)
def test_a_selecting_ufunc_over_learner_objects_is_refused(
    hostile_judge: Judge, operation: str
) -> None:
    report, _ = grade(hostile_judge, on_first_case(SELECTING_UAF.replace("OPERATION", operation)))
    assert_first_case_stopped(report, Verdict.runtime_error, "in the judge")


# Operators on object arrays call an element's method with borrowed operands, then CPython
# calls the other operand's reflected method: freeing that operand in between (the red team's
# second round) needs a write into the array, which learner code cannot make.
OPERATOR_UAF = """
    class Other:
        def __rmul__(self, other):
            return 0
    class Dropper:
        def __mul__(self, other):
            b[0] = None
            return NotImplemented
    a = np.array([Dropper()], dtype=object)
    b = np.array([Other()], dtype=object)
    r = a * b
    return [], 0
"""


def test_an_operator_cannot_free_an_operand_of_an_object_array(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case(OPERATOR_UAF))
    assert_first_case_stopped(report, Verdict.runtime_error, "in the judge")


# A child is forked from the zygote, whose freed heap held earlier submissions' source: reading
# uninitialised memory (np.empty, np.ndarray(shape), a ufunc's where=False slots, a void
# scalar's byteswap) showed another learner's code before these allocations were zeroed.
SECRET_SOURCE = (
    "import numpy as np\n"
    + "".join(f"# OTHER-LEARNER-SECRET-{i:04d}-{'Z' * 60}\n" for i in range(250))
    + f"{SIGNATURE}\n    return [], 0\n"
)
LEFTOVER_SCAN = """
    found = 0
    for size in range(1000, 70000, 1500):
        for _ in range(5):
            chunks = [
                np.empty(size, dtype=np.uint8).tobytes(),
                np.empty_like(np.zeros(size, dtype=np.uint8)).tobytes(),
                np.ndarray((size,), dtype=np.uint8).tobytes(),
                np.divide(np.ones(size), 1.0, where=np.zeros(size, dtype=bool)).tobytes(),
            ]
            found += sum(b"OTHER-LEARNER-SECRET" in chunk for chunk in chunks)
    print("found", found)
    return [], 0
"""


def test_other_learners_code_cannot_be_read_from_leftover_memory(hostile_judge: Judge) -> None:
    for _ in range(3):
        grade(hostile_judge, SECRET_SOURCE)
    report, _ = grade(hostile_judge, on_first_case(LEFTOVER_SCAN))
    assert report.tests[0].output == "found 0\n", report.tests[0].output


# numpy converts a list keeping borrowed pointers into it while it calls the items' __len__:
# a learner __len__ that empties the list frees what numpy reads next (the sixth round).
LIST_UAF = """
    class Emptier:
        def __init__(self, items):
            self.items = items
        def __len__(self):
            del self.items[:]
            return 1
        def __getitem__(self, index):
            if index == 0:
                return 1.0
            raise IndexError
    class Big:
        pass
    items = []
    items.append(Emptier(items))
    for _ in range(200):
        items.append(Big())
    np.array(items)
    return [], 0
"""


def test_numpy_never_runs_a_learners_methods_while_converting_a_list(
    hostile_judge: Judge,
) -> None:
    report, _ = grade(hostile_judge, on_first_case(LIST_UAF))
    assert_first_case_stopped(report, Verdict.runtime_error, "numpy cannot take objects")
