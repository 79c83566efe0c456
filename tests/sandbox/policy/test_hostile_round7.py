"""Red team, round 7, against the real judge: borrowed references in CPython's C code (functools'
key objects, list comparison), writes into object arrays through augmented assignment, containers
the operand rule did not look into, numpy's scalar classes, a standard ABC's registry, and the
addresses that hash() leaked (reproducers: the round's ``uaf_*``, ``objarray_write``,
``operand_subclass``, ``numpy_class_unguarded``; see hostile.py for the harness).
"""

from __future__ import annotations

import pytest

from app.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import (
    assert_first_case_stopped,
    assert_nothing_ran,
    grade,
    on_first_case,
)

# -- functools.cmp_to_key: borrowed references handed to the learner's comparison ------------

# The round's crash: next(generator, key) as the comparison, and a generator that frees the
# other key (KeyWrapper.obj was writable) before next() takes a reference to it.
CMP_TO_KEY_UAF = """
    import functools
    class Y:
        pass
    box = {}
    def g():
        box["k2"].obj = None
        junk = [list(range(8)) for _ in range(100)]
        return
        yield
    K = functools.cmp_to_key(next)
    k1 = K(g())
    box["k2"] = K(Y())
    return [k1 < box["k2"]], 1
"""


def test_the_uaf_through_a_key_object_is_refused_before_it_runs(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case(CMP_TO_KEY_UAF))
    assert_nothing_ran(report, Verdict.rejected, "the attribute 'obj' is not available")


@pytest.mark.parametrize("name", ["cmp_to_key", "total_ordering"])
def test_functools_has_no_key_objects_nor_comparison_writers(
    hostile_judge: Judge, name: str
) -> None:
    body = f"import functools\nfunctools.{name}\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, f"functools.{name} is not available")


def test_from_functools_import_cmp_to_key_is_refused(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=(
        "from functools import cmp_to_key"
    )))  # fmt: skip
    assert_nothing_ran(report, Verdict.runtime_error, "functools.cmp_to_key is not available")


BLOCKED_WRITES = {
    "assignment": "x.obj = None",
    "augmented": "x.obj += 1",
    "deletion": "del x.load",
    "annotated": "x.obj: int = 1",
}


@pytest.mark.parametrize("name", list(BLOCKED_WRITES))
def test_blocked_attribute_names_cannot_be_written_in_code(hostile_judge: Judge, name: str) -> None:
    body = f"class X:\n    pass\nx = X()\n{BLOCKED_WRITES[name]}\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_nothing_ran(report, Verdict.rejected, "is not available in the judge")


def test_blocked_attribute_names_cannot_be_written_with_setattr(hostile_judge: Judge) -> None:
    body = "class X:\n    pass\nsetattr(X(), 'obj', None)\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "cannot set the attribute 'obj'")


# -- comparisons and finalisers of learner classes: refused when compiling -------------------

# No import at all: list_richcompare compares the first differing items through borrowed
# pointers; A.__lt__ empties the right list and answers NotImplemented, and CPython 3.11 then
# calls the reflected method on the freed item (gh-120298).
LIST_COMPARE_UAF = """
box = {}
class A:
    def __lt__(self, other):
        box["right"].clear()
        junk = [[0] * 8 for _ in range(50)]
        return NotImplemented
    def __eq__(self, other):
        return False
class B:
    def __gt__(self, other):
        return True
    def __eq__(self, other):
        return False
"""


def test_the_list_comparison_uaf_is_refused_before_it_runs(hostile_judge: Judge) -> None:
    body = 'box["right"] = [B()]\nreturn [[A()] < box["right"]], 1'
    report, _ = grade(hostile_judge, on_first_case(body, module=LIST_COMPARE_UAF))
    assert_nothing_ran(report, Verdict.rejected, "classes cannot define __lt__", "C code")


@pytest.mark.parametrize(
    ("method", "why"),
    [
        ("__eq__", "C code"),
        ("__ne__", "C code"),
        ("__lt__", "C code"),
        ("__le__", "C code"),
        ("__gt__", "C code"),
        ("__ge__", "C code"),
        ("__hash__", "identity"),
        ("__del__", "finaliser"),
    ],
)
def test_learner_classes_cannot_define_comparisons_hashes_or_finalisers(
    hostile_judge: Judge, method: str, why: str
) -> None:
    module = f"class A:\n    def {method}(self, *other):\n        return 0"
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, Verdict.rejected, f"classes cannot define {method}", why)


OTHER_ROUTES = {
    "setattr on a class": (
        "class A:\n    pass\nsetattr(A, '__lt__', lambda a, b: NotImplemented)",
        "cannot set the attribute '__lt__'",
    ),
    "type() with three arguments": (
        "type('A', (), {'__lt__': lambda a, b: NotImplemented})",
        "type() with three arguments",
    ),
    "type() of a class": ("class A:\n    pass\ntype(A)('B', (), {})", "type() of a class"),
    "total_ordering": (
        "import functools\n@functools.total_ordering\nclass A:\n    pass",
        "functools.total_ordering is not available",
    ),
}


@pytest.mark.parametrize("name", list(OTHER_ROUTES))
def test_no_other_route_gives_a_class_comparisons(hostile_judge: Judge, name: str) -> None:
    body, needle = OTHER_ROUTES[name]
    report, _ = grade(hostile_judge, on_first_case(body + "\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, needle)


@pytest.mark.parametrize(
    "code",
    [
        "class A:\n    __lt__ = max",  # a class attribute named as the method
        "class A:\n    pass\nA.__eq__ = max",  # assigned after the class is made
        "import dataclasses",  # dataclasses write __eq__ (and order=True the others)
    ],
)
def test_no_spelling_in_code_gives_a_class_comparisons(hostile_judge: Judge, code: str) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=code))
    assert_nothing_ran(report, Verdict.rejected)


# -- augmented assignment into an object array held by a container or an attribute ----------

INPLACE_WRITES = {
    "item": "box = [a]\nbox[0] += 10",
    "attribute": "class H:\n    pass\nh = H()\nh.x = a\nh.x *= 3",
    "dict item": "d = {'k': a}\nd['k'] -= 1",
    "nested item": "box = [[a]]\nbox[0][0] += 10",
}


@pytest.mark.parametrize("name", list(INPLACE_WRITES))
def test_augmented_assignment_never_writes_into_an_object_array(
    hostile_judge: Judge, name: str
) -> None:
    body = (
        "a = np.array([1, 2], dtype=object)\n"
        "try:\n"
        + "".join(f"    {line}\n" for line in INPLACE_WRITES[name].splitlines())
        + "except Exception as e:\n    print('refused:', e)\n"
        "print('after:', a.tolist())\n"
        "return [], 0"
    )
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.tests[0].output is not None
    assert "refused: arrays of Python objects" in report.tests[0].output, report.tests[0].output
    assert "after: [1, 2]" in report.tests[0].output, report.tests[0].output


def test_augmented_assignment_still_works_on_numbers_and_numeric_arrays(
    hostile_judge: Judge,
) -> None:
    body = """
        class H:
            pass
        h = H()
        h.x = np.zeros(2)
        h.x += 1
        box = [np.ones(2)]
        box[0] *= 3
        d = {"k": 5}
        d["k"] -= 1
        print(h.x.tolist(), box[0].tolist(), d["k"])
        return [], 0
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.tests[0].output == "[1.0, 1.0] [3.0, 3.0] 4\n", report.tests[0].output
