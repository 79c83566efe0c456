"""Hostile learner code against the real judge: one test per threat.

Every submission is graded by one warm judge (zygote + confined children) against the real
exercise "speculative-decoding-verify". Each test asserts the verdict *and* that nothing
happened outside: no file written, no connection made, no secret or reference code in the
report, no process left behind, the judge still grading correctly afterwards.

Most hostile code runs only on the first case (``if draft_tokens == FIRST_TOKENS``) and falls
back to an honest implementation otherwise, so each test also shows that the harness kept
going: the first case gets its own verdict and the five others still pass. A hostile body that
is *not* stopped falls through to the honest answer, and its test fails.
"""

from __future__ import annotations

import ast
import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.catalog import Catalog, Exercise
from app.errors import PayloadTooLarge
from app.judge import Judge
from app.schemas import Report, Status, Verdict
from sandbox import protocol
from tests.procfs import stat_fields

REPO = Path(__file__).resolve().parents[2]
EXERCISE_ID = "speculative-decoding-verify"
EXERCISE_DIR = REPO / "exercises" / EXERCISE_ID
CANARY = "judge-canary-5f1c0a77e2"  # set in the test process's environment, never in a report
SECRET = "judge-secret-93b47d1e06"  # in a world-readable file the learner's code tries to read
CUT_MARK = "[output cut: limit reached]"

CATALOG = Catalog.load()
EXERCISE = CATALOG.get(EXERCISE_ID)
assert EXERCISE is not None
FIRST_TOKENS = EXERCISE.cases[0].input["draft_tokens"]
LIMITS = EXERCISE.limits
# A runaway case costs its deadline plus the kill, the report and some slack for a busy box.
BOUNDED_S = LIMITS.time_ms / 1000 + 3.0

HONEST = """
def honest(draft_probs, target_probs, draft_tokens):
    np.random.seed(42)
    accepted = []
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        accept_prob = 1.0 if q == 0 else min(1.0, p / q)
        if np.random.uniform() < accept_prob:
            accepted.append(int(token))
        else:
            break
    return accepted, len(accepted)
"""
SIGNATURE = (
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):"
)
# Lines of the reference solution (its docstring, comments...) that no submission here contains:
# any of them in a report means the reference was read.
REFERENCE_MARKS = [
    line.strip()
    for line in EXERCISE.solution_code.splitlines()
    if len(line.strip()) >= 24 and line.strip() not in HONEST + SIGNATURE
]
assert REFERENCE_MARKS


def on_first_case(body: str, module: str = "") -> str:
    """A submission doing ``body`` on the first case and the honest thing on the others."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        "import numpy as np\n"
        + textwrap.dedent(module).strip("\n")
        + "\n"
        + HONEST
        + f"\n\n{SIGNATURE}\n"
        + f"    if draft_tokens == {FIRST_TOKENS!r}:\n{inner}\n"
        + "    return honest(draft_probs, target_probs, draft_tokens)\n"
    )


def whole(body: str) -> str:
    """A submission doing ``body`` on every case (e.g. returning a crafted value)."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 4)
    return "import numpy as np\n" + HONEST + f"\n\n{SIGNATURE}\n{inner}\n"


# -- processes ------------------------------------------------------------------------------


def process_table() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state letter, CPU ticks used) for every process in /proc."""
    return {
        pid: (int(fields[1]), fields[0], int(fields[11]) + int(fields[12]))
        for pid, fields in stat_fields().items()
    }


def children(pid: int, table: dict[int, tuple[int, str, int]] | None = None) -> list[int]:
    """The living children of ``pid`` (a killed child not yet reaped is a zombie: dead)."""
    table = process_table() if table is None else table
    return [
        child for child, (parent, state, _) in table.items() if parent == pid and state not in "ZX"
    ]


def settled_children(
    zygote: int, workers: int, timeout: float = 2.0
) -> tuple[dict[int, tuple[int, str, int]], list[int]]:
    """The process table and the zygote's living children, once at most ``workers`` remain.

    A child is killed as its verdict is sent; the kernel may take a moment to tear it down.
    """
    deadline = time.monotonic() + timeout
    while True:
        table = process_table()
        kids = children(zygote, table)
        if len(kids) <= workers or time.monotonic() > deadline:
            return table, kids
        time.sleep(0.05)


def wait_for_no_children(pid: int, timeout: float = 3.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (found := children(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def open_dir() -> Iterator[Path]:
    """A directory anyone may read and write, holding a world-readable secret file.

    It lives directly under /tmp so that the unprivileged uid could reach it: whatever keeps
    learner code out of it is the sandbox, not a 0700 parent directory.
    """
    path = Path(tempfile.mkdtemp(prefix="judge-hostile-", dir="/tmp"))
    path.chmod(0o777)
    secret = path / "secret.txt"
    secret.write_text(f"{SECRET}\n1.0 2.0\n")
    secret.chmod(0o644)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def hostile_judge() -> Iterator[Judge]:
    """One warm judge for the whole module, started with a canary in the environment."""
    previous = os.environ.get("JUDGE_CANARY")
    os.environ["JUDGE_CANARY"] = CANARY
    judge = Judge.create(workers=2)
    try:
        yield judge
    finally:
        judge.close()
        if previous is None:
            os.environ.pop("JUDGE_CANARY", None)
        else:
            os.environ["JUDGE_CANARY"] = previous


@pytest.fixture(autouse=True)
def nothing_survives(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each grading test: the zygote holds at most its idle spares, none of them busy."""
    yield
    if "hostile_judge" not in request.fixturenames:
        return
    judge: Judge = request.getfixturevalue("hostile_judge")
    status = judge.pool.status()
    if not status["alive"]:
        return  # the closing test checks that case itself
    zygote = status["zygote_pid"]
    # Spares: confined, waiting for a job, one per worker at most. A child that outlived its
    # verdict would be one more, and one still running learner code would be burning CPU.
    table, kids = settled_children(zygote, judge.pool.workers)
    assert len(kids) <= judge.pool.workers, f"zygote children after the verdict: {kids}"
    ticks = os.sysconf("SC_CLK_TCK")
    for kid in kids:
        assert children(kid, table) == [], f"child {kid} of the zygote has children"
        assert table[kid][2] / ticks < 0.5, f"child {kid} of the zygote is busy"


def grade(judge: Judge, code: str, exercise: Exercise = EXERCISE) -> tuple[Report, float]:
    """Grade, time it, and check that no secret of the trusted side got into the report."""
    started = time.monotonic()
    report = judge.grade(exercise, code)
    elapsed = time.monotonic() - started
    text = report.model_dump_json()
    for secret in (CANARY, SECRET, *REFERENCE_MARKS):
        if secret not in code:  # (the reference itself is graded once, at the end)
            assert secret not in text, f"{secret!r} leaked into the report"
    if str(REPO) not in code:  # the judge's own paths stay out of what the learner reads
        messages = [report.message] + [test.message for test in report.tests]
        assert not any(str(REPO) in (message or "") for message in messages), messages
    return report, elapsed


def assert_first_case_stopped(report: Report, verdict: Verdict, *needles: str) -> None:
    """The first case got ``verdict`` (message containing every needle); the others passed."""
    first, *rest = report.tests
    assert report.verdict == verdict, (report.verdict, first.message)
    assert report.status == Status.failed
    assert first.status in (Status.error, Status.failed)
    for needle in needles:
        assert needle in (first.message or ""), first.message
    assert [test.status for test in rest] == [Status.passed] * len(rest), [
        test.message for test in rest
    ]
    assert report.passed == report.total - 1


def assert_nothing_ran(report: Report, verdict: Verdict, *needles: str) -> None:
    """The submission never reached its cases (compile error, refusal, module-level error)."""
    assert report.verdict == verdict, (report.verdict, report.message)
    assert report.status == Status.error
    assert report.passed == 0
    assert all(test.status == Status.error for test in report.tests)
    for needle in needles:
        assert needle in (report.message or ""), report.message


def dir_listing(path: Path) -> list[str]:
    return sorted(entry.name for entry in path.iterdir())


# -- baseline -------------------------------------------------------------------------------


def test_the_honest_fallback_is_accepted(hostile_judge: Judge) -> None:
    report, _ = grade(
        hostile_judge, whole("return honest(draft_probs, target_probs, draft_tokens)")
    )
    assert report.verdict == Verdict.accepted and report.passed == report.total == 6


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
    "import numpy.ctypeslib": ("import numpy.ctypeslib", "numpy.ctypeslib"),
    "from numpy.lib import format": ("from numpy.lib import format", "numpy.lib"),
    "import numpy.f2py": ("import numpy.f2py", "numpy.f2py"),
    "import numpy.distutils": ("import numpy.distutils", "numpy.distutils"),
    "import numpy.lib.stride_tricks": ("import numpy.lib.stride_tricks", "numpy.lib"),
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


# -- numpy: raw memory and crashes ----------------------------------------------------------

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
        fake.capsule = capsule_of_a_dead_generator()
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


def test_a_real_segfault_is_a_runtime_error_of_its_case(hostile_judge: Judge) -> None:
    # Hashing a 10**6-deep tuple recurses in C without a depth check: SIGSEGV in the child.
    body = """
        nested = ()
        for i in range(10**6):
            nested = (nested,)
        return [hash(nested)], 1
    """
    report, elapsed = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error)
    message = report.tests[0].message or ""
    assert "segmentation fault" in message or "RecursionError" in message, message
    assert elapsed < BOUNDED_S


# numpy's object sorts, partitions and arg-reductions keep borrowed pointers into the array
# while they call the elements' comparison methods; a learner __lt__ that reassigns the array's
# items frees them mid-sort (use after free: a crash, or a freed object read as another).
REENTRANT_COMPARISON = """
    calls = [0]
    keys = np.array([0] * 101, dtype=object)
    class Key:
        def __init__(self, v):
            self.v = v
        def __lt__(self, other):
            calls[0] += 1
            if calls[0] % 20 == 0:
                for i in range(len(keys)):
                    keys[i] = Key(-i)
                junk = [b"A" * 40 for _ in range(20000)]
            return self.v < other.v
    for i in range(101):
        keys[i] = Key((i * 7919) % 101)
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
    assert_first_case_stopped(report, Verdict.runtime_error, "not available in the judge")


def test_repr_of_a_deeply_nested_list_is_a_recursion_error(hostile_judge: Judge) -> None:
    body = """
        nested = []
        for i in range(10**5):
            nested = [nested]
        return [repr(nested)], 1
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "RecursionError")


# -- introspection: refused by the compiler -------------------------------------------------

COMPILE_REFUSED = {
    "__subclasses__": "x = ().__class__.__bases__[0].__subclasses__()",
    "__class__": "x = (1).__class__",
    "__globals__": f"{SIGNATURE}\n    return speculative_decode.__globals__",
    "__builtins__": "x = __builtins__['open']",
    "__dict__": "x = np.__dict__",
    "__import__": "x = __import__('os')",
    "sys._getframe": "def f(s):\n    return s._getframe(1)",
    "np._core": "x = np._core.multiarray",
    "__traceback__": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    x = e.__traceback__",
    "eval": "x = eval('1')",
    "exec": "exec('x = 1')",
    "metaclass keyword": "class M:\n    pass\nclass A(metaclass=M):\n    pass",
    "__getattr__ override": "class A:\n    def __getattr__(self, name):\n        return 1",
    "__reduce__": "class A:\n    def __reduce__(self):\n        return (print, ())",
    "__init_subclass__": "class A:\n    def __init_subclass__(cls):\n        pass",
    "__del__": "class A:\n    def __del__(self):\n        pass",
    "import _thread": "import _thread",
    "import builtins": "import builtins",
    "f-string attribute": "x = f'{np.__dict__!r:>10}'",
    "generator gi_frame": "x = (i for i in [1]).gi_frame.f_back",
    "traceback tb_frame": "def f(tb):\n    return tb.tb_frame.f_globals",
}


@pytest.mark.parametrize("name", list(COMPILE_REFUSED))
def test_introspection_is_refused_by_the_compiler(hostile_judge: Judge, name: str) -> None:
    code = "import numpy as np\n" + COMPILE_REFUSED[name] + "\n"
    if SIGNATURE not in code:
        code += f"\n{SIGNATURE}\n    return [], 0\n"
    report, _ = grade(hostile_judge, code)
    assert_nothing_ran(report, Verdict.rejected, "does not allow")


# -- introspection: refused at run time -----------------------------------------------------

RUNTIME_REFUSED = {
    "getattr '__class__'": ("getattr(1, '__class__')", "__class__"),
    "getattr '__globals__'": ("getattr(honest, '__glo' + 'bals__')", "__globals__"),
    "vars()": ("vars()", "vars"),
    "globals()": ("globals()", "globals"),
    "locals()": ("locals()", "locals"),
    "dir()": ("dir(np)", "dir"),
    "compile": ("compile('1', 'f', 'exec')", "compile"),
    "open": ("open('/etc/passwd').read()", "open"),
    "help()": ("help(np)", "help"),
    "generator frame via getattr": ("getattr((i for i in [1]), 'gi_frame')", "gi_frame"),
    "type(), three arguments": ("type('X', (), {'y': 1})", "three arguments"),
    "metaclass through type(type)": (
        "type(type(1))('X', (), {'__repr__': lambda self: 'forged'})",
        "type() of a class",
    ),
    "str.format through the class": ("str.format('{0.__class__}', 1)", "__class__"),
    "str.format on an instance": ("'{0.__globals__}'.format(honest)", "__globals__"),
    "str.format of a str subclass": (
        "class S(str):\n    pass\ntype(S('x')).format('{0.__class__}', 1)",
        "__class__",
    ),
    "str.format through super()": (
        "class S(str):\n    pass\nsuper(S, S('{0.__class__}')).format(1)",
        "__class__",
    ),
    "format field reaching a frame": (
        "gen = (i for i in [1])\n'{0.gi_frame.f_back}'.format(gen)",
        "gi_frame",
    ),
    "format field item with '_'": ("'{0[__builtins__]}'.format({})", "not allowed"),
    "str.format_map": ("'{x}'.format_map({'x': 1})", "format_map"),
    "operator.attrgetter": (
        "import operator\noperator.attrgetter('__class__')(1)",
        "attrgetter",
    ),
    "operator.methodcaller": (
        "import operator\noperator.methodcaller('tofile', 'x')(np.zeros(1))",
        "methodcaller",
    ),
    "functools.reduce(getattr)": (
        "import functools\nfunctools.reduce(getattr, ['__class__', '__base__'], 1)",
        "__class__",
    ),
    "map(getattr)": ("list(map(getattr, [1], ['__class__']))", "__class__"),
    "min(key=getattr)": ("min([1], key=lambda v: getattr(v, '__class__'))", "__class__"),
    "functools.wraps swapping globals": (
        "import functools, statistics\n"
        "functools.wraps(statistics.mean, assigned=(), updated=('__globals__',))(honest)",
        "assigned",
    ),
    "typing.get_type_hints": (
        "import typing\ntyping.get_type_hints(honest)",
        "get_type_hints",
    ),
    "modules behind a surface": ("import statistics\nstatistics.random.os", "statistics.random"),
    "module attribute of a module": ("import random\nrandom.SystemRandom()", "SystemRandom"),
    "exception with_traceback frame": (
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
        "    getattr(e.with_traceback(None), '__traceback__')",
        "__traceback__",
    ),
    "setattr of a dunder": (
        "class A:\n    pass\nsetattr(A(), '__class__', int)",
        "__class__",
    ),
    "setattr on a module": ("np.random.seed = print", "cannot modify"),
    "property fget reaching globals": (
        "class A:\n    @property\n    def p(self):\n        return 1\n"
        "getattr(A.p.fget, '__globals__')",
        "__globals__",
    ),
}


@pytest.mark.parametrize("name", list(RUNTIME_REFUSED))
def test_introspection_is_refused_at_run_time(hostile_judge: Judge, name: str) -> None:
    body, needle = RUNTIME_REFUSED[name]
    report, _ = grade(hostile_judge, on_first_case(body + "\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, needle)


# -- imports ----------------------------------------------------------------------------------

FORBIDDEN_MODULES = """
    os sys subprocess ctypes pickle socket shutil importlib threading multiprocessing
    signal io pathlib tempfile inspect gc os.path marshal mmap resource posix asyncio numpy.core
    concurrent.futures urllib.request http.client code codecs runpy types weakref
""".split()


@pytest.mark.parametrize("module", FORBIDDEN_MODULES)
def test_forbidden_imports_are_refused(hostile_judge: Judge, module: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(f"import {module}\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, f"import of '{module}' is not allowed")


def test_a_forbidden_import_at_module_level_stops_the_whole_submission(
    hostile_judge: Judge,
) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module="import os"))
    assert_nothing_ran(report, Verdict.runtime_error, "import of 'os' is not allowed")


def test_from_imports_of_allowed_modules_stay_inside_the_surface(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case("from random import SystemRandom\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, "SystemRandom")


# -- the exercise folder, other files, the environment --------------------------------------

READERS = {
    "open": "open(PATH).read()",
    "np.loadtxt": "np.loadtxt(PATH, dtype=str)",
    "np.genfromtxt": "np.genfromtxt(PATH, dtype=str)",
    "np.fromfile": "np.fromfile(PATH, dtype=np.uint8)",
    "np.fromregex": "np.fromregex(PATH, '(.*)', [('line', 'U100')])",
    "np.load": "np.load(PATH, allow_pickle=True)",
    "np.memmap": "np.memmap(PATH, dtype=np.uint8, mode='r')",
    "np.DataSource": "np.DataSource(None).open(PATH).read()",
    "print to a file": "print(open(PATH).read())",
}


@pytest.mark.parametrize("reader", list(READERS))
def test_a_world_readable_file_cannot_be_read(
    hostile_judge: Judge, open_dir: Path, reader: str
) -> None:
    path = open_dir / "secret.txt"
    body = f"data = {READERS[reader]}\nprint(data)\nreturn [str(data)], 0"
    report, _ = grade(hostile_judge, on_first_case(body.replace("PATH", repr(str(path)))))
    assert_first_case_stopped(report, Verdict.runtime_error)  # and grade() checked SECRET


@pytest.mark.parametrize(
    "path",
    [
        EXERCISE_DIR / "cases.json",
        EXERCISE_DIR / "solution.py",
        REPO / "app" / "config.py",
        Path("/proc/self/environ"),
        Path("/proc/1/environ"),
        Path(f"/proc/{os.getpid()}/environ"),  # the test process: it holds the canary
        Path(f"/proc/{os.getpid()}/cmdline"),
    ],
    ids=lambda path: str(path).replace(str(REPO), "<repo>"),
)
def test_the_exercise_folder_and_other_processes_cannot_be_read(
    hostile_judge: Judge, path: Path
) -> None:
    attempts = """
        found = []
        for reader in (lambda: open(PATH).read(), lambda: np.loadtxt(PATH, dtype=str),
                       lambda: np.fromfile(PATH, dtype=np.uint8), lambda: np.load(PATH)):
            try:
                found.append(str(reader()))
            except Exception as error:
                found.append(str(error))
        print(found)
        return found, len(found)
    """
    report, _ = grade(hostile_judge, on_first_case(attempts.replace("PATH", repr(str(path)))))
    assert_first_case_stopped(report, Verdict.wrong_answer)  # grade() checked every secret
    if path.name == "cases.json":
        expected = json.dumps(EXERCISE.cases[4].expected["value"])
        assert "zero probabilities" not in (report.tests[0].output or "")
        assert expected not in (report.tests[0].output or "")


ENVIRONMENT_READERS = {
    "os.environ": "import os\nreturn [os.environ['JUDGE_CANARY']], 1",
    "os.getenv": "import os\nreturn [os.getenv('JUDGE_CANARY')], 1",
    "format through module globals": (
        "import statistics\n"
        "return [str.format('{0.__globals__[sys].modules[os].environ}', statistics.mean)], 1"
    ),
    "format through the policy": ("return ['{0.__self__.modules}'.format(getattr)], 1"),
    "/proc/self/environ": "return [open('/proc/self/environ').read()], 1",
    "DataSource environ": "return [np.DataSource(None).open('/proc/self/environ').read()], 1",
}


@pytest.mark.parametrize("name", list(ENVIRONMENT_READERS))
def test_the_environment_cannot_be_read(hostile_judge: Judge, name: str) -> None:
    assert os.environ["JUDGE_CANARY"] == CANARY  # the judge was started with it set
    report, _ = grade(hostile_judge, on_first_case(ENVIRONMENT_READERS[name]))
    assert_first_case_stopped(report, Verdict.runtime_error)  # grade() checked the canary


# -- writing files ----------------------------------------------------------------------------

WRITERS = {
    "open for writing": "open(PATH, 'w').write('pwned')",
    "print(file=...)": "print('pwned', file=PATH)",
    "np.save": "np.save(PATH, np.zeros(2))",
    "np.savetxt": "np.savetxt(PATH, np.zeros(2))",
    "ndarray.tofile": "np.zeros(2).tofile(PATH)",
    "ndarray.dump": "np.zeros(2).dump(PATH)",
    "np.memmap w+": "np.memmap(PATH, mode='w+', shape=(4,))",
    "pathlib": "import pathlib\npathlib.Path(PATH).write_text('pwned')",
    "shutil": "import shutil\nshutil.copy('/etc/hostname', PATH)",
    "tempfile": "import tempfile\ntempfile.mkstemp(dir=PATH)",
    "io": "import io\nio.open(PATH, 'w').write('pwned')",
}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_files_cannot_be_written(hostile_judge: Judge, open_dir: Path, writer: str) -> None:
    target = open_dir / f"written-{list(WRITERS).index(writer)}"
    before = dir_listing(open_dir)
    body = WRITERS[writer].replace("PATH", repr(str(target))) + "\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.verdict != Verdict.accepted
    assert report.tests[0].status != Status.passed
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5
    assert not target.exists()
    assert dir_listing(open_dir) == before
    if writer == "print(file=...)":  # the keyword is ignored: the text is captured output
        assert report.tests[0].output == "pwned\n"
    else:
        assert report.verdict == Verdict.runtime_error


# -- sockets, processes, threads ------------------------------------------------------------

CONNECTORS = {
    "socket": "import socket\nsocket.create_connection(('127.0.0.1', PORT))",
    "urllib": "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:PORT/')",
    "http.client": (
        "import http.client\nhttp.client.HTTPConnection('127.0.0.1', PORT).request('GET', '/')"
    ),
    "np.DataSource url": "np.DataSource(None).open('http://127.0.0.1:PORT/')",
    "np.loadtxt url": "np.loadtxt('http://127.0.0.1:PORT/')",
}


@pytest.mark.parametrize("connector", list(CONNECTORS))
def test_no_connection_can_be_opened(hostile_judge: Judge, connector: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        body = CONNECTORS[connector].replace("PORT", str(port)) + "\nreturn [], 0"
        report, _ = grade(hostile_judge, on_first_case(body))
        assert_first_case_stopped(report, Verdict.runtime_error)
        readable, _, _ = select.select([listener], [], [], 0.2)
        assert readable == [], "a connection reached the test's listener"


SPAWNERS = {
    "os.fork": "import os\nos.fork()",
    "os.system": "import os\nos.system('sleep 30')",
    "subprocess": "import subprocess\nsubprocess.Popen(['sleep', '30'])",
    "threading": "import threading\nthreading.Thread(target=print).start()",
    "multiprocessing": "import multiprocessing\nmultiprocessing.Process(target=print).start()",
    "concurrent.futures": (
        "import concurrent.futures\nconcurrent.futures.ThreadPoolExecutor().submit(print)"
    ),
}


@pytest.mark.parametrize("spawner", list(SPAWNERS))
def test_no_process_or_thread_can_be_started(hostile_judge: Judge, spawner: str) -> None:
    before = set(process_table())
    report, _ = grade(hostile_judge, on_first_case(SPAWNERS[spawner] + "\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, "is not allowed")
    zygote = hostile_judge.pool.status()["zygote_pid"]
    table, kids = settled_children(zygote, hostile_judge.pool.workers)
    # Nothing new under the zygote but its spares, and no orphaned 'sleep' anywhere.
    new = set(table) - before
    for pid in new:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        assert not command.startswith(b"sleep"), f"process {pid} was started: {command!r}"
    assert len(kids) <= hostile_judge.pool.workers


# -- infinite loops -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "while True:\n    pass",
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass",
    ],
    ids=["plain", "catching every exception"],
)
def test_an_infinite_loop_is_a_time_limit_of_its_case(hostile_judge: Judge, body: str) -> None:
    report, elapsed = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.time_limit_exceeded, "time limit exceeded")
    assert elapsed < BOUNDED_S, elapsed


def test_an_infinite_loop_at_module_level_is_a_time_limit(hostile_judge: Judge) -> None:
    report, elapsed = grade(
        hostile_judge, on_first_case("return [], 0", module="while True:\n    pass")
    )
    assert_nothing_ran(report, Verdict.time_limit_exceeded)
    assert elapsed < BOUNDED_S, elapsed


# -- memory, giant integers ---------------------------------------------------------------------

MEMORY_BOMBS = {
    "list of 10**10": ("return [0] * 10**10, 0", Verdict.memory_limit_exceeded),
    "str of 10**10": ("return ['x' * 10**10], 0", Verdict.memory_limit_exceeded),
    "np.zeros(10**10)": ("return np.zeros(10**10), 0", Verdict.memory_limit_exceeded),
    "np.empty of 2**62 bytes": ("return np.empty((2**31, 2**31), dtype=np.uint8), 0", None),
    "growing list": (
        "hoard = []\nwhile True:\n    hoard.append([0] * 100000)",
        Verdict.memory_limit_exceeded,
    ),
    "doubling string": ("s = 'x'\nwhile True:\n    s = s + s", Verdict.memory_limit_exceeded),
    "bytearray(2**34)": ("return [bytearray(2**34)], 0", Verdict.runtime_error),
}


@pytest.mark.parametrize("name", list(MEMORY_BOMBS))
def test_memory_bombs_get_a_clear_verdict(hostile_judge: Judge, name: str) -> None:
    body, verdict = MEMORY_BOMBS[name]
    report, elapsed = grade(hostile_judge, on_first_case(body))
    if verdict is None:  # numpy may refuse the shape itself: either is a clear answer
        assert report.verdict in (Verdict.memory_limit_exceeded, Verdict.runtime_error)
        verdict = report.verdict
    assert_first_case_stopped(report, verdict)
    message = report.tests[0].message or ""
    if verdict == Verdict.memory_limit_exceeded:
        assert "memory limit exceeded" in message
    assert elapsed < BOUNDED_S, elapsed


@pytest.mark.parametrize("expression", ["10**10**8", "2**(2**40)"])
def test_giant_integers_hit_a_limit_not_the_host(hostile_judge: Judge, expression: str) -> None:
    report, elapsed = grade(hostile_judge, on_first_case(f"return [{expression}], 1"))
    assert report.verdict in (Verdict.time_limit_exceeded, Verdict.memory_limit_exceeded)
    assert_first_case_stopped(report, report.verdict, "limit exceeded")
    assert elapsed < BOUNDED_S, elapsed


# -- output floods ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "while True:\n    print('flood')",
        "while True:\n    try:\n        print('flood')\n    except:\n        pass",
        "print('x' * 10**8)\nreturn [], 0",
        "print('y' * 1000, end='')\nprint('z' * (2 * CAP))\nreturn [], 0",
    ],
    ids=["loop", "loop catching the limit", "one 100 MB print", "just over the cap"],
)
def test_output_floods_are_cut_and_reported(hostile_judge: Judge, body: str) -> None:
    code = on_first_case(body.replace("CAP", str(LIMITS.output_bytes)))
    report, elapsed = grade(hostile_judge, code)
    assert_first_case_stopped(report, Verdict.output_limit_exceeded, "output limit exceeded")
    output = report.tests[0].output or ""
    assert output.endswith(CUT_MARK)
    assert len(output) <= LIMITS.output_bytes + len(CUT_MARK) + 1
    assert elapsed < BOUNDED_S, elapsed


# -- recursion, compiler crashes ----------------------------------------------------------------


def test_deep_recursion_is_a_recursion_error(hostile_judge: Judge) -> None:
    body = "def dive(n):\n    return dive(n + 1)\nreturn dive(0)"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "RecursionError")


def test_mutual_recursion_through_a_class_is_a_recursion_error(hostile_judge: Judge) -> None:
    body = """
        class Loop:
            def __eq__(self, other):
                return self == other
        return [Loop() == Loop()], 1
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "RecursionError")


COMPILER_CRASHERS = {
    "30000 parentheses": "x = " + "(" * 30000 + ")" * 30000 + "\n",
    "30000 brackets": "x = " + "[" * 30000 + "]" * 30000 + "\n",
    "1+1+...+1": "x = " + "1+" * 30000 + "1\n",
    "60000 unary minus": "x = " + "-" * 60000 + "1\n",
    "attribute chain": "x = a" + ".b" * 20000 + "\n",
    "call chain": "x = f" + "()" * 20000 + "\n",
    "NUL byte": f"{SIGNATURE}\n    return [], 0\x00\n",
    "60 KB line": "x = '" + "a" * 60000 + "\n",
    "150 nested blocks": "".join("    " * i + "if True:\n" for i in range(150))
    + "    " * 150
    + "pass\n",
    "lone surrogate": f"x = '\ud800'\n{SIGNATURE}\n    return [], 0\n",
    "lambda tower": "x = " + "lambda: " * 7000 + "1\n",
}


@pytest.mark.parametrize("name", list(COMPILER_CRASHERS))
def test_compiler_crashing_source_is_a_compile_error(hostile_judge: Judge, name: str) -> None:
    source = COMPILER_CRASHERS[name]
    assert len(source.encode("utf-8", "surrogatepass")) <= LIMITS.code_bytes
    report, elapsed = grade(hostile_judge, source)
    assert_nothing_ran(report, Verdict.compile_error, "does not compile")
    assert elapsed < BOUNDED_S, elapsed


def test_source_over_the_size_cap_is_refused_before_the_sandbox(hostile_judge: Judge) -> None:
    with pytest.raises(PayloadTooLarge):
        hostile_judge.grade(EXERCISE, "x = " + "1+" * LIMITS.code_bytes + "1\n")


# -- early exits ----------------------------------------------------------------------------------

EXITS = {
    "raise SystemExit(0)": "raise SystemExit(0)",
    "exit()": "exit(0)",
    "quit()": "quit()",
    "raise KeyboardInterrupt": "raise KeyboardInterrupt",
    "raise GeneratorExit": "raise GeneratorExit",
    "BaseException subclass": "class Bye(BaseException):\n    pass\nraise Bye()",
    "StopIteration out of a generator": (
        "def gen():\n    raise StopIteration\n    yield 1\nreturn list(gen()), 0"
    ),
    "generator ignoring close": (
        "def gen():\n    while True:\n        try:\n            yield 1\n"
        "        except:\n            pass\ng = gen()\nnext(g)\ng.close()"
    ),
    "bare except swallowing everything, then exit": (
        "try:\n    raise SystemExit(0)\nexcept:\n    pass\nreturn [], 0"
    ),
}


@pytest.mark.parametrize("name", list(EXITS))
def test_early_exits_never_pass_and_never_stop_the_harness(hostile_judge: Judge, name: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(EXITS[name]))
    assert report.verdict != Verdict.accepted
    assert report.tests[0].status != Status.passed
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5
    assert report.passed == 5


MODULE_LEVEL = {
    "raise SystemExit(0)": ("raise SystemExit(0)", Verdict.runtime_error, "SystemExit"),
    "raise KeyboardInterrupt": ("raise KeyboardInterrupt", Verdict.runtime_error, "Keyboard"),
    "memory bomb": ("hoard = [0] * 10**10", Verdict.memory_limit_exceeded, "memory"),
    "segfault": (
        "nested = ()\nfor i in range(10**6):\n    nested = (nested,)\nhash(nested)",
        Verdict.runtime_error,
        "crashed",
    ),
}


@pytest.mark.parametrize("name", list(MODULE_LEVEL))
def test_hostility_at_module_level_stops_only_the_submission(
    hostile_judge: Judge, name: str
) -> None:
    module, verdict, needle = MODULE_LEVEL[name]
    report, elapsed = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, verdict, needle)
    assert elapsed < BOUNDED_S, elapsed


def test_a_print_flood_at_module_level_is_an_output_limit(hostile_judge: Judge) -> None:
    module = "while True:\n    print('flood')"
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, Verdict.output_limit_exceeded)


def test_a_reply_flood_is_cut_and_never_accepted(hostile_judge: Judge) -> None:
    # ~370 KB of tagged floats per case: the 1 MB reply budget runs out on the third case.
    body = "return [0.12345678901234567] * 9990, 1"
    report, elapsed = grade(hostile_judge, whole(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.passed == 0
    messages = [test.message or "" for test in report.tests]
    assert any("too large to report" in message for message in messages), messages
    assert elapsed < BOUNDED_S, elapsed


# -- lying values -------------------------------------------------------------------------------

LIARS = {
    "object equal to everything": (
        """
        class Anything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
        return Anything()
        """,
        "Anything",
    ),
    "tuple of liars": (
        """
        class Anything:
            def __eq__(self, other):
                return True
        return Anything(), Anything()
        """,
        "Anything",
    ),
    "list subclass with the right items": (
        """
        class Yes(list):
            def __eq__(self, other):
                return True
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return Yes(accepted), count
        """,
        "Yes",
    ),
    "int subclass count": (
        """
        class Count(int):
            def __eq__(self, other):
                return True
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return accepted, Count(count)
        """,
        "Count",
    ),
    "tuple subclass": (
        """
        class Pair(tuple):
            def __eq__(self, other):
                return True
        return Pair(honest(draft_probs, target_probs, draft_tokens))
        """,
        "Pair",
    ),
    "float-valued tokens": (
        """
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return [float(token) for token in accepted], count
        """,
        "float",
    ),
}


@pytest.mark.parametrize("name", list(LIARS))
def test_lying_eq_is_never_accepted(hostile_judge: Judge, name: str) -> None:
    body, type_name = LIARS[name]
    report, _ = grade(hostile_judge, whole(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.passed == 0
    messages = [test.message or "" for test in report.tests]
    assert all(type_name in message for message in messages if message), messages
    assert any(type_name in message for message in messages), messages


SUBCLASS = """
class Sub(np.ndarray):
    pass
accepted, count = honest(draft_probs, target_probs, draft_tokens)
"""


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (
            SUBCLASS + "return np.array(accepted, dtype=np.int64).view(Sub), count",
            "accepted_tokens must be a list, got speculative_decode.<locals>.Sub",
        ),
        (
            SUBCLASS + "return accepted, np.array(count).view(Sub)",
            "num_accepted must be an int, got speculative_decode.<locals>.Sub",
        ),
        (
            SUBCLASS + "return np.array(accepted), count",
            "accepted_tokens must be a list, got numpy.ndarray",
        ),
    ],
    ids=["subclass for the tokens", "subclass for the count", "plain ndarray"],
)
def test_ndarray_values_are_not_accepted_and_named(
    hostile_judge: Judge, body: str, named: str
) -> None:
    report, _ = grade(hostile_judge, whole(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.passed == 0
    assert all(named in (test.message or "") for test in report.tests), report.tests[0].message


# -- forged replies -----------------------------------------------------------------------------


def _forged_frame() -> str:
    claim = {
        "t": "case",
        "case": 0,
        "outcome": "returned",
        "value": {"t": "tuple", "v": []},
        "status": "pass",
        "verdict": "accepted",
        "passed": 6,
    }
    body = json.dumps(claim)
    header = len(body).to_bytes(4, "big").decode("latin-1")
    return header + body


@pytest.mark.parametrize(
    "body",
    [
        f"print({_forged_frame()!r}, end='')\nreturn [], 0",
        f"print({_forged_frame()!r} * 100, end='')\nreturn [], 0",
        'print(\'{"status": "pass", "verdict": "accepted", "passed": 6}\')\nreturn [], 0',
        f"return [{_forged_frame()!r}], 0",
        f"return {_forged_frame()!r}",
        "print('x', file=1)\nprint('y', file=3)\nreturn [], 0",
    ],
    ids=[
        "framed claim on stdout",
        "a hundred framed claims",
        "report-shaped JSON",
        "framed claim as the value",
        "framed claim as the whole reply",
        "print to fd 1 and fd 3",
    ],
)
def test_forged_replies_are_data_not_results(hostile_judge: Judge, body: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.tests[0].status == Status.failed
    assert report.passed == 5
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5


def test_printed_frames_come_back_verbatim_as_output(hostile_judge: Judge) -> None:
    frame = _forged_frame()
    report, _ = grade(hostile_judge, on_first_case(f"print({frame!r}, end='')\nreturn [], 0"))
    assert report.tests[0].output == frame
    assert report.verdict == Verdict.wrong_answer


def test_a_deeply_nested_reply_frame_is_a_protocol_error() -> None:
    body = b'{"t":"case","case":0,"value":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    frame = protocol.HEADER.pack(len(body)) + body
    with pytest.raises(protocol.ProtocolError):
        protocol.FrameReader().feed(frame)


# -- the trust boundary in the code -------------------------------------------------------------


def test_sandbox_never_imports_app() -> None:
    for path in sorted((REPO / "sandbox").glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert name != "app" and not name.startswith("app."), f"{path.name} imports {name}"
    modules = sorted(
        path.stem for path in (REPO / "sandbox").glob("*.py") if path.stem != "__init__"
    )
    probe = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module('sandbox.' + name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'app' or m.startswith('app.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(REPO)!r})\n" + probe],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


# -- afterwards -----------------------------------------------------------------------------------


def test_the_reference_is_still_accepted_after_all_of_that(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, EXERCISE.solution_code)
    assert report.verdict == Verdict.accepted
    assert report.passed == report.total == 6
    status = hostile_judge.pool.status()
    assert status["alive"] and status["restarts"] == 0  # the zygote survived every test


def test_closing_the_judge_leaves_no_process_behind(hostile_judge: Judge) -> None:
    zygote = hostile_judge.pool.status()["zygote_pid"]
    assert zygote is not None
    spares = children(zygote)
    hostile_judge.close()
    assert wait_for_no_children(zygote) == []
    assert not Path(f"/proc/{zygote}").exists()
    for pid in spares:
        assert not Path(f"/proc/{pid}").exists(), f"child {pid} outlived the zygote"
