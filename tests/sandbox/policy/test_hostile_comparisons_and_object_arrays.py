"""Against the real judge: borrowed references in CPython's C code (functools'
key objects, list comparison) freed by a learner's comparison, writes into object arrays through
augmented assignment, containers the operand rule did not look into, numpy's scalar classes, a
standard ABC's registry, and the addresses that hash() leaked. Each attack is written out as it
crashed or escaped before its fix (see hostile.py for the harness).
"""

from __future__ import annotations

import textwrap

import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import (
    assert_first_case_stopped,
    assert_nothing_ran,
    grade,
    on_first_case,
)

# -- functools.cmp_to_key: borrowed references handed to the learner's comparison ------------

# The crash: next(generator, key) as the comparison, and a generator that frees the
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


@pytest.mark.parametrize(
    ("block", "kind"),
    [
        ("try:\n        yield 1\n    finally:\n        box.clear()", "try"),
        ("try:\n        yield 1\n    except BaseException:\n        box.clear()", "try"),
        ("try:\n        pass\n    finally:\n        yield 1", "try"),
        ("with ctx:\n        yield 1", "with"),
        ("for i in range(3):\n        with ctx:\n            yield i", "with"),
    ],
)
def test_a_generator_cannot_wait_inside_clean_up_code(
    hostile_judge: Judge, block: str, kind: str
) -> None:
    # Closing a generator that waits in a try or with block runs that block's handlers, at
    # the moment its last reference goes (inside C code, as a __del__ would run).
    module = f"box = []\nctx = None\ndef g():\n    {block}"
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, Verdict.rejected, f"a yield inside a {kind} block")


def test_generators_and_clean_up_code_still_work_apart(hostile_judge: Judge) -> None:
    module = """
        def pairs(values):
            for value in values:
                yield value, value
        def total(values):
            try:
                return sum(v for v, _ in pairs(values))
            finally:
                values.clear()
        def nested():
            try:
                def inner():
                    yield 1
                return list(inner())
            except ValueError:
                return []
        """
    body = """
        if total([1, 2]) == 3 and nested() == [1]:
            return honest(draft_probs, target_probs, draft_tokens)
        return [], 0
        """
    report, _ = grade(hostile_judge, on_first_case(body, module=module))
    assert report.verdict == Verdict.accepted, [test.message for test in report.tests]


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


# -- the same family through numpy's dtype conversion: learner code inside dtype's comparison --

# np.dtype's comparison converts the other operand (reading its .dtype, or a dict through its
# __getitem__), drops the error and answers NotImplemented: the list comparison above again.
DTYPE_COMPARE_UAF = {
    "a dtype property": """
        class D:
            @property
            def dtype(self):
                box["right"].clear()
                raise ValueError
    """,
    "a dict's __getitem__": """
        class D(dict):
            def __getitem__(self, key):
                box["right"].clear()
                raise KeyError(key)
    """,
}


@pytest.mark.parametrize("name", list(DTYPE_COMPARE_UAF))
def test_dtype_comparison_never_runs_learner_code(hostile_judge: Judge, name: str) -> None:
    body = (
        "box = {}\n"
        + textwrap.dedent(DTYPE_COMPARE_UAF[name]).strip("\n")
        + '\nbox["right"] = [D()]\nreturn [[np.dtype("f8")] == box["right"]], 1'
    )
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "numpy reads")


# -- the operand rule looks into every sequence learner code can build ---------------------

OPERAND_CONTAINERS = {
    "a list subclass": "class L(list):\n    pass\nkeys = L([a])",
    "a namedtuple": "import collections\nkeys = collections.namedtuple('NT', 'key')(a)",
    "a deque": "import collections\nkeys = collections.deque([a])",
    "a tuple subclass": "class T(tuple):\n    pass\nkeys = T((a,))",
}


@pytest.mark.parametrize("name", list(OPERAND_CONTAINERS))
def test_an_object_array_in_any_sequence_is_not_an_operand(hostile_judge: Judge, name: str) -> None:
    body = (
        "a = np.array([3, 1, 2], dtype=object)\n"
        + OPERAND_CONTAINERS[name]
        + "\nreturn [np.lexsort(keys).tolist()], 1"
    )
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "array of Python objects")


def test_a_sequence_that_redefines_how_it_is_read_is_not_an_operand(hostile_judge: Judge) -> None:
    body = """
        import collections
        a = np.array([3, 1, 2], dtype=object)
        class Two(collections.deque):
            def __getitem__(self, index):
                return a
        return [np.lexsort(Two([np.zeros(3)])).tolist()], 1
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "redefines how it is read")


# -- numpy's scalar classes and np.dtype take plain data ------------------------------------

SCALAR_CLASS_CALLS = {
    "np.float64(object array)": "np.float64(np.array([1, 2, 3], dtype=object))",
    "np.float64(learner object)": (
        "class N:\n    def __float__(self):\n        return 3.0\nnp.float64(N())"
    ),
    "np.int64(learner object)": "class N:\n    def __int__(self):\n        return 3\nnp.int64(N())",
    "np.dtype(learner object)": (
        "class D:\n    pass\nd = D()\nd.dtype = np.dtype([('a', 'f8')])\nnp.dtype(d)"
    ),
    "type(scalar)(object array)": "type(np.float64(1))(np.array([1], dtype=object))",
    "dtype.type(object array)": "np.zeros(1).dtype.type(np.array([1], dtype=object))",
}


@pytest.mark.parametrize("name", list(SCALAR_CLASS_CALLS))
def test_numpy_scalar_classes_take_plain_data_only(hostile_judge: Judge, name: str) -> None:
    body = SCALAR_CLASS_CALLS[name] + "\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "is not available in the judge")


def test_numpy_scalar_classes_still_work_as_correct_code_uses_them(hostile_judge: Judge) -> None:
    body = """
        x = np.float64(0.5)
        checks = [
            isinstance(x, np.float64), isinstance(np.int64(3), np.integer),
            np.int64(3) == 3, type(x) is np.float64, x.dtype.type is np.float64,
            np.zeros(2, dtype=np.float64).dtype == np.float64,
            np.array([1, 2], dtype=np.int64).dtype == np.int64,
            np.ones(2).astype(np.int64).dtype == np.int64, bool(np.bool_(True)),
            np.dtype(np.float64) == np.dtype("f8"), np.finfo(np.float64).eps > 0,
            np.random.default_rng(0).integers(0, 5, 3, dtype=np.int64).dtype == np.int64,
            issubclass(np.float64, np.floating),
        ]
        print(all(checks), [i for i, ok in enumerate(checks) if not ok])
        return [], 0
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.tests[0].output == "True []\n", report.tests[0].output


# -- the standard library's abstract base classes are not learner code's to change ---------


@pytest.mark.parametrize(
    "call", ["fractions.Fraction.register(float)", "typing.Sequence.register(dict)"]
)
def test_standard_abcs_cannot_be_registered_with(hostile_judge: Judge, call: str) -> None:
    body = f"import fractions\nimport typing\n{call}\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "registering a class")


# -- addresses: no id(), and no hash() that is an address ----------------------------------


@pytest.mark.parametrize(
    "value",
    ["list", "np.zeros", "'x'.format", "None", "honest", "(1, list)", "np.float64", "A()"],
)
def test_hash_never_hands_out_an_address(hostile_judge: Judge, value: str) -> None:
    body = f"class A:\n    pass\nprint(hash({value}))\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(report, Verdict.runtime_error, "its hash is its memory address")


def test_there_is_no_id(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case("print(id(list))\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, "NameError")


def test_hash_of_values_still_works(hostile_judge: Judge) -> None:
    body = """
        import collections
        P = collections.namedtuple("P", "x y")
        values = [1, 2.5, "a", (1, "b", (2.0,)), frozenset({3}), np.float64(1.5), P(1, 2), True]
        print(all(type(hash(v)) is int for v in values), hash(P(1, 2)) == hash((1, 2)))
        try:
            hash([1])
        except TypeError as e:
            print(e)
        return [], 0
    """
    report, _ = grade(hostile_judge, on_first_case(body))
    output = report.tests[0].output
    assert output == "True True\nunhashable type: 'list'\n", output
