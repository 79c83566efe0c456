"""Hostile learner code against the real judge: infinite loops, memory, giant integers, output
floods, recursion, compiler-crashing source, early exits and crashes (see hostile.py).
"""

from __future__ import annotations

import pytest

from app.errors import PayloadTooLarge
from app.grading.judge import Judge
from app.schemas import Status, Verdict
from tests.sandbox.hostile import (
    BOUNDED_S,
    CUT_MARK,
    EXERCISE,
    LIMITS,
    SIGNATURE,
    assert_budget_spent_by_first_case,
    assert_first_case_stopped,
    assert_nothing_ran,
    grade,
    on_first_case,
    whole,
)

# -- infinite loops -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "while True:\n    pass",
        "while True:\n    try:\n        while True:\n            pass\n    except:\n        pass",
    ],
    ids=["plain", "catching every exception"],
)
def test_an_infinite_loop_spends_the_submissions_time_budget(
    hostile_judge: Judge, body: str
) -> None:
    report, elapsed = grade(hostile_judge, on_first_case(body))
    assert_budget_spent_by_first_case(report)
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
    if report.verdict == Verdict.time_limit_exceeded:
        assert_budget_spent_by_first_case(report)
    else:
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
            def __len__(self):
                return len(self)
        return [len(Loop())], 1
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "RecursionError")


def test_repr_of_a_deeply_nested_list_is_a_recursion_error(hostile_judge: Judge) -> None:
    body = """
        nested = []
        for i in range(10**5):
            nested = [nested]
        return [repr(nested)], 1
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
    "bare except swallowing everything, then exit": (
        "try:\n    raise SystemExit(0)\nexcept:\n    pass\nreturn [], 0"
    ),
}


def test_a_generator_ignoring_close_is_refused_before_it_runs(hostile_judge: Judge) -> None:
    # It used to run (and be contained); a yield inside a try block is now refused outright.
    code = (
        "def gen():\n    while True:\n        try:\n            yield 1\n"
        "        except:\n            pass\ng = gen()\nnext(g)\ng.close()"
    )
    report, _ = grade(hostile_judge, on_first_case(code))
    assert_nothing_ran(report, Verdict.rejected, "a yield inside a try block")


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


# -- crashes --------------------------------------------------------------------------------


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
