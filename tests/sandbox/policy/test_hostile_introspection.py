"""Hostile learner code against the real judge: dunders, frames, builtins, format tricks and
imports (see hostile.py).
"""

from __future__ import annotations

import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import (
    REPO,
    SIGNATURE,
    assert_first_case_stopped,
    assert_nothing_ran,
    grade,
    on_first_case,
)

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
    # What the compiler allows beyond RestrictedPython stays inside the same rules:
    "nonlocal of a guard's name": (
        "def f():\n    _getattr_ = 1\n    def g():\n        nonlocal _getattr_\n    return g"
    ),
    "annotated write to a '_' attribute": "x = np.zeros(1)\nx.__class__: int = int",
    "annotation reading a '_' attribute": "x: np.__dict__ = 1",
    "annotated '_' name": "_getattr_: int = 1",
    "assigning __name__": "__name__ = '__main__'",
    "__name__ as an attribute": "x = np.__name__",
    "__init__ on anything but super()": "x = np.zeros(1).__init__",
    "__init__ of a super() stored first": (
        "class A:\n    def f(self):\n        s = super()\n        return s.__init__"
    ),
    "__setattr__ method": "class A:\n    def __setattr__(self, k, v):\n        pass",
    "__getattribute__ method": "class A:\n    def __getattribute__(self, k):\n        return 1",
    "__class_getitem__ method": "class A:\n    def __class_getitem__(cls, k):\n        return 1",
    "__set_name__ method": "class A:\n    def __set_name__(self, owner, name):\n        pass",
    "__get__ method": "class A:\n    def __get__(self, obj, kind=None):\n        return 1",
    "a special method name at module level": "def __repr__():\n    return 'x'",
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
        "cannot derive from str",
    ),
    "str.format through super()": (
        "class S(str):\n    pass\nsuper(S, S('{0.__class__}')).format(1)",
        "cannot derive from str",
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
    "annotated write to a module": ("np.random.seed: object = print", "cannot modify"),
    "getattr '__init__' on an array": ("getattr(np.zeros(1), '__init__')", "__init__"),
    "getattr '__init__' on a module": ("getattr(np.random, '__init__')", "__init__"),
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
def test_forbidden_imports_are_refused_when_compiling(hostile_judge: Judge, module: str) -> None:
    # Even inside a function that only the first case reaches: nothing runs at all.
    report, _ = grade(hostile_judge, on_first_case(f"import {module}\nreturn [], 0"))
    assert_nothing_ran(report, Verdict.rejected, f"import of '{module}' is not allowed")


@pytest.mark.parametrize(
    "statement",
    ["from os import path", "from os.path import join", "import numpy.fft as fft",
     "from . import helpers", "from .. import solution"],
)  # fmt: skip
def test_every_spelling_of_a_forbidden_import_is_refused(
    hostile_judge: Judge, statement: str
) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=statement))
    assert_nothing_ran(report, Verdict.rejected, "line 2: ")
    assert "is not allowed" in (report.message or "") or "relative" in (report.message or "")


def test_a_forbidden_import_at_module_level_stops_the_whole_submission(
    hostile_judge: Judge,
) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module="import os"))
    assert_nothing_ran(report, Verdict.rejected, "line 2: import of 'os' is not allowed")


def test_from_imports_of_allowed_modules_stay_inside_the_surface(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case("from random import SystemRandom\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, "random.SystemRandom is not available")


def test_printed_output_does_not_show_the_judges_paths(hostile_judge: Judge) -> None:
    # Whatever route a path of the judge's takes into a learner's print (an exception message
    # naming a file, a guess), the report shows it as <judge>.
    report, _ = grade(hostile_judge, on_first_case(f"print({str(REPO / 'app')!r})\nreturn [], 0"))
    output = report.tests[0].output or ""
    assert str(REPO) not in output
    assert "<judge>/app" in output
