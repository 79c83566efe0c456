"""Against the real judge: CPython C code that runs learner code while it
holds a length or a borrowed reference (a list's slice assignment, itertools' zip_longest,
islice and count), a generator's delegate closed inside C code (``yield from``), and standard
classes compared through methods a subclass overrides (Fraction, deque, Counter). Each attack is
written out as it crashed before its fix (see hostile.py for the harness).
"""

from __future__ import annotations

import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import (
    assert_first_case_stopped,
    assert_nothing_ran,
    grade,
    on_first_case,
)


def first_output(judge: Judge, body: str, module: str = "") -> str:
    """What the first case printed; the submission answers honestly after ``body``."""
    report, _ = grade(judge, on_first_case(body, module=module))
    output = report.tests[0].output
    assert output is not None, (report.verdict, report.tests[0].message)
    return output


# -- yield from closes a learner object inside the C code that drops the generator ------------

YIELD_FROM_CLOSE = """
class Inner:
    def __iter__(self):
        return self
    def __next__(self):
        return 1
    def close(self):
        box.clear()
box = []
def gen():
    yield from Inner()
"""


@pytest.mark.parametrize(
    "module",
    [
        YIELD_FROM_CLOSE,
        "def g():\n    yield from range(3)",  # any delegate: the compiler cannot tell
        "def g():\n    x = yield from [1]\n    return x",
        "f = lambda: (yield from [1])",
    ],
)
def test_yield_from_is_refused_when_compiling(hostile_judge: Judge, module: str) -> None:
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, Verdict.rejected, "yield from is not available", "for x in it")


def test_a_written_out_delegation_still_works(hostile_judge: Judge) -> None:
    module = """
        def inner(n):
            for i in range(n):
                yield i
        def outer(n):
            for x in inner(n):
                yield x
    """
    assert first_output(hostile_judge, "print(list(outer(3)))", module) == "[0, 1, 2]\n"


# -- a slice of a list assigned from a learner iterator that shrinks the list -----------------

# CPython computes an extended slice from the list's length, then converts the value, running
# the iterator; an iterator that empties the list made the C code write past its end
# (gh-120384). Through the guard, the value is a list before the C code sees the length.
SHRINKING = """
class Clearing:
    def __init__(self, target):
        self.target = target
        self.n = 0
    def __iter__(self):
        return self
    def __next__(self):
        self.n += 1
        if self.n == 1:
            self.target.clear()
        if self.n <= 4:
            return self.n
        raise StopIteration
"""


@pytest.mark.parametrize(
    ("write", "error"),
    [
        ("lst[::2] = Clearing(lst)", "size 4 to extended slice of size 0"),
        ("lst[::-2] = Clearing(lst)", "size 4 to extended slice of size 0"),
        ("lst[1:7:3] = Clearing(lst)", "size 4 to extended slice of size 0"),
        ("lst[slice(0, 8, 2)] = Clearing(lst)", "size 4 to extended slice of size 0"),
        # the item read is a copy (extended by the iterator); the write back is the guard's
        ("lst[::2] += Clearing(lst)", "size 8 to extended slice of size 0"),
    ],
)
def test_a_slice_assignment_never_sees_the_list_shrink(
    hostile_judge: Judge, write: str, error: str
) -> None:
    body = f"""
        lst = list(range(8))
        try:
            {write}
        except ValueError as e:
            print("refused:", e)
        print("after:", lst)
    """
    output = first_output(hostile_judge, body, SHRINKING)
    assert output == f"refused: attempt to assign sequence of {error}\nafter: []\n", output


def test_a_shrinking_iterator_cannot_write_into_other_lists(hostile_judge: Judge) -> None:
    # The attack: the C code's writes past the shrunk list landed in the arrays of
    # the lists allocated next.
    module = """
        class Shrinking:
            def __init__(self, target, victims):
                self.target = target
                self.victims = victims
                self.n = 0
            def __iter__(self):
                return self
            def __next__(self):
                self.n += 1
                if self.n == 1:
                    self.target.clear()
                    self.target.append(0)
                    for v in self.victims:
                        v.append(9)
                if self.n <= 2:
                    return 100 + self.n
                raise StopIteration
    """
    body = """
        keep = [[] for i in range(400)]
        for k in keep:
            k.append(1)
        victims = [[] for i in range(40)]
        lst = list(range(8))
        try:
            lst[::6] = Shrinking(lst, victims)
        except ValueError as e:
            print("refused:", e)
        print("changed:", [i for i, v in enumerate(victims) if v != [9]], lst)
    """
    output = first_output(hostile_judge, body, module)
    assert "refused: attempt to assign sequence of size 2 to extended slice of size 1" in output
    assert "changed: [] [0]" in output, output


@pytest.mark.parametrize(("name", "instead"), [("setitem", "obj[key] = value"), ("delitem", "del")])
def test_operator_item_writers_are_not_available(
    hostile_judge: Judge, name: str, instead: str
) -> None:
    # operator.setitem(lst, slice(None, None, 2), it) was the same write past the guard.
    body = f"import operator\noperator.{name}\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body))
    assert_first_case_stopped(
        report, Verdict.runtime_error, f"operator.{name} is not available", instead
    )


def test_slices_of_lists_still_take_any_iterable(hostile_judge: Judge) -> None:
    module = """
        class Evens:
            def __iter__(self):
                return iter([0, 2])
        class Tagged(list):
            pass
    """
    body = """
        a = list(range(6))
        a[::3] = Evens()
        a[1:3] = (x * 10 for x in range(3))
        a[len(a):] = "xy"
        c = [1, 2, 3]
        c[0:1] += (x for x in [7])
        t = Tagged([1, 2, 3])
        t[::2] = map(abs, [-5, -6])
        t.label = "kept"
        del a[::4]
        print(a, c, t, t.label, sum(c[:]))
    """
    output = first_output(hostile_judge, body, module)
    assert output == "[0, 10, 20, 4, 5, 'x'] [1, 7, 2, 3] [5, 2, 6] kept 13\n", output


# -- itertools' zip_longest and islice re-entered by the learner's __next__ -------------------

ZIP_LONGEST_UAF = """
class Reenter:
    def __init__(self):
        self.z = None
    def __iter__(self):
        return self
    def __next__(self):
        z = self.z
        if z is None:
            raise StopIteration
        self.z = None
        next(z, None)
        raise StopIteration
"""


def test_the_zip_longest_uaf_is_refused_before_it_runs(hostile_judge: Judge) -> None:
    body = """
        import itertools
        driver = Reenter()
        driver.z = itertools.zip_longest(itertools.chain(driver), itertools.repeat(None))
        next(driver.z)
        return [], 0
    """
    report, _ = grade(hostile_judge, on_first_case(body, module=ZIP_LONGEST_UAF))
    assert_first_case_stopped(
        report, Verdict.runtime_error, "itertools.zip_longest is not available", "zip("
    )


@pytest.mark.parametrize(
    "code",
    [
        "import itertools\nitertools.islice",
        "import itertools\nitertools.zip_longest",
        "from itertools import islice",
        "from itertools import zip_longest",
    ],
)
def test_zip_longest_and_islice_are_not_available(hostile_judge: Judge, code: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(code + "\nreturn [], 0"))
    assert_first_case_stopped(report, Verdict.runtime_error, "is not available in the judge")


# -- itertools.count adding a learner step object ---------------------------------------------

COUNT_STEP = """
class Step:
    def __int__(self):
        return 1
    def __radd__(self, other):
        return other + 1
"""


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        ("itertools.count(1 << 100, Step())", "a step of type 'Step'"),
        ("itertools.count(Step())", "a start of type 'Step'"),
        ("itertools.count(0, fractions.Fraction(1, 2))", "a step of type 'Fraction'"),
        ("type(itertools.count(1))(1 << 100, Step())", "a step of type 'Step'"),
        ("itertools.count(start=0, step=Step())", "a step of type 'Step'"),
    ],
)
def test_itertools_count_takes_numbers_only(hostile_judge: Judge, call: str, needle: str) -> None:
    body = f"import itertools\nimport fractions\nnext({call})\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body, module=COUNT_STEP))
    assert_first_case_stopped(report, Verdict.runtime_error, needle, "give it an int or a float")


def test_itertools_still_counts_numbers(hostile_judge: Judge) -> None:
    body = """
        import itertools
        a = list(zip("ab", itertools.count()))
        b = [next(itertools.count(2.5, 0.5)) for _ in range(2)]
        c = next(itertools.count(np.int64(3), np.float64(0.5)))
        d = list(zip(range(2), itertools.count(start=10, step=-1)))
        e = list(itertools.takewhile(lambda x: x < 3, itertools.count(1)))
        print(a, b, float(c), d, e, list(itertools.chain([1], [2])))
    """
    output = first_output(hostile_judge, body)
    assert output == "[('a', 0), ('b', 1)] [2.5, 2.5] 3.0 [(0, 10), (1, 9)] [1, 2] [1, 2]\n"


# -- standard classes compared through methods a subclass overrides ---------------------------

COMPARED_SUBCLASSES = {
    "a Fraction subclass": (
        "import fractions\nclass F(fractions.Fraction):\n    @property\n"
        "    def numerator(self):\n        return 1",
        "classes cannot derive from Fraction",
    ),
    "a plain Fraction subclass": (
        "from fractions import Fraction\nclass F(Fraction):\n    pass",
        "classes cannot derive from Fraction",
    ),
    "a deque subclass's __iter__": (
        "import collections\nclass D(collections.deque):\n    def __iter__(self):\n"
        "        return iter([])",
        "a subclass of deque cannot define __iter__",
    ),
    "a Counter subclass's __iter__": (
        "import collections\nclass C(collections.Counter):\n    def __iter__(self):\n"
        "        return iter([])",
        "a subclass of Counter cannot define __iter__",
    ),
    "a subclass of a deque subclass": (
        "import collections\nclass D(collections.deque):\n    pass\nclass E(D):\n"
        "    def __iter__(self):\n        return iter([])",
        "a subclass of deque cannot define __iter__",
    ),
}


@pytest.mark.parametrize("name", list(COMPARED_SUBCLASSES))
def test_standard_classes_compared_in_c_keep_their_reads(hostile_judge: Judge, name: str) -> None:
    module, needle = COMPARED_SUBCLASSES[name]
    report, _ = grade(hostile_judge, on_first_case("return [], 0", module=module))
    assert_nothing_ran(report, Verdict.runtime_error, needle, "C code")


def test_the_fraction_property_in_a_list_comparison_is_refused(hostile_judge: Judge) -> None:
    # The attack: Fraction.__eq__ read the subclass's property from inside
    # list_richcompare, which holds borrowed pointers to both items.
    module = """
        import fractions
        class F(fractions.Fraction):
            @property
            def numerator(self):
                print("learner property inside Fraction.__eq__")
                return 1
    """
    body = "print([F(1, 2)] == [F(1, 2)])\nreturn [], 0"
    report, _ = grade(hostile_judge, on_first_case(body, module=module))
    assert_nothing_ran(report, Verdict.runtime_error, "classes cannot derive from Fraction")
    assert all("learner property" not in (test.output or "") for test in report.tests)


def test_fractions_deques_and_counters_still_compare(hostile_judge: Judge) -> None:
    module = """
        import collections
        import fractions
        class Window(collections.deque):
            def mean(self):
                return sum(self) / len(self)
        class Tally(collections.Counter):
            def top(self):
                return self.most_common(1)[0][0]
    """
    body = """
        half = fractions.Fraction(1, 2)
        w = Window([1, 2, 3], maxlen=3)
        t = Tally("abca")
        print([half] == [fractions.Fraction(2, 4)], sorted([half, fractions.Fraction(1, 3)]),
              [w] == [Window([1, 2, 3])], w.mean(), [t] == [Tally("aabc")], t.top())
    """
    output = first_output(hostile_judge, body, module)
    assert output == "True [Fraction(1, 3), Fraction(1, 2)] True 2.0 True a\n", output
