"""Hostile learner code against the real judge: no memory address through any repr (see
hostile.py).

CPython's default reprs print an object's address (``<A object at 0x55d...>``), from which
learner code could learn where to forge objects; the policy gives every default repr in the
child the same text without it (``sandbox/policy/reprs.py``). Each route below reaches a
default repr in its own way; each is run in a real confined child and carried out of it by
``print``, by the returned value and by a raised error, and nothing in the report may hold an
address. Each also asserts the address-free text, so a route the policy refused (or a text
that lost more than its address) fails too.
"""

from __future__ import annotations

import re

import pytest

from app.grading.judge import Judge
from app.schemas import Report, Status, Verdict
from tests.sandbox.hostile import assert_nothing_ran, grade, on_first_case

# What CPython prints of an address: 0x and at least six hex digits (numpy's are upper case).
ADDRESS = re.compile(r"0x[0-9a-f]{6,}", re.IGNORECASE)

MODULE = """
import collections, functools, itertools, random


def h():
    return 1


class K:
    def m(self):
        return 1


class Own:
    def __repr__(self):
        return "Own(1)"


class Oops(Exception):
    pass


def counting():
    yield 1
"""

# name: (an expression giving the text of a default repr, what the text holds)
TEXT_ROUTES = {
    "repr() of a function": ("repr(h)", "<function h>"),
    "str() of a function": ("str(h)", "<function h>"),
    "format() of a function": ("format(h)", "<function h>"),
    "an f-string": ('f"{h}"', "<function h>"),
    "an f-string's !r": ('f"{h!r}"', "<function h>"),
    "an f-string's !s": ('f"{h!s}"', "<function h>"),
    "an f-string's !a": ('f"{h!a}"', "<function h>"),
    "an f-string's !r with a width": ('f"{h!r:>30}"', "<function h>"),
    "%r": ('"%r" % (h,)', "<function h>"),
    "%s": ('"%s" % (h,)', "<function h>"),
    "%a": ('"%a" % (h,)', "<function h>"),
    "str.format with !r": ('"{!r}".format(h)', "<function h>"),
    "str.format": ('"{0}".format(h)', "<function h>"),
    "str.format through the class": ('str.format("{0!s}", h)', "<function h>"),
    "str.join of reprs": ('", ".join(map(repr, [h, K()]))', "<function h>, <solution.K object>"),
    "an instance of the learner's class": ("repr(K())", "<solution.K object>"),
    "str() of the learner's instance": ("str(K())", "<solution.K object>"),
    "format() of the learner's instance": ('format(K(), "")', "<solution.K object>"),
    "a bound method": ("repr(K().m)", "<bound method K.m of <solution.K object>>"),
    "super()": ("repr(super(K, K()))", "<super: <class 'K'>, <K object>>"),
    "a lambda": ("repr(lambda: 0)", "<function speculative_decode.<locals>.<lambda>>"),
    "a generator": ("repr(counting())", "<generator object counting>"),
    "a generator expression": ("repr((x for x in [1]))", "<generator object speculative_decode"),
    "a list iterator": ("repr(iter([1]))", "<list_iterator object>"),
    "map, zip, enumerate, reversed": (
        "repr([map(abs, [1]), zip(), enumerate([]), reversed([])])",
        "[<map object>, <zip object>, <enumerate object>, <list_reverseiterator object>]",
    ),
    "a callable iterator": ("repr(iter(h, 2))", "<callable_iterator object>"),
    "a built-in method": ("repr([].append)", "<built-in method append of list object>"),
    "object()": ("repr(object())", "<object object>"),
    "a property": ("repr(property(h))", "<property object>"),
    "a staticmethod": ("repr(staticmethod(h))", "<staticmethod(<function h>)>"),
    "functools.partial": ("repr(functools.partial(h))", "functools.partial(<function h>)"),
    "an itertools object": ("repr(itertools.chain([1]))", "<itertools.chain object>"),
    "random.Random": ("repr(random.Random(1))", "<random.Random object>"),
    "numpy's Generator": ("repr(np.random.default_rng(1))", "Generator(PCG64)"),
    "numpy's RandomState": ("repr(np.random.RandomState(1))", "RandomState(MT19937)"),
    "a bit generator": (
        "repr(np.random.default_rng(1).bit_generator)",
        "<numpy.random._pcg64.PCG64 object>",
    ),
    "a numpy function": ("repr(np.sum)", "<function sum>"),
    "an array's method": ("repr(np.zeros(2).sum)", "<function ndarray.sum>"),
    "a Generator's method": (
        "repr(np.random.default_rng(1).random)",
        "<function Generator.random>",
    ),
    "a ufunc's method": ("repr(np.add.reduce)", "<function ufunc.reduce>"),
    "a library getter": ("repr(np.iinfo.max.fget)", "<function iinfo.max>"),
    "an array's flat iterator": ("repr(np.zeros(2).flat)", "<numpy.flatiter object>"),
    "np.errstate": ("repr(np.errstate())", "<numpy.errstate object>"),
    "an object array": (
        "repr(np.array([h, counting()], dtype=object))",
        "array([<function h>, <generator object counting>], dtype=object)",
    ),
    "str() of an object array": ("str(np.array([h], dtype=object))", "[<function h>]"),
    "a list of objects": ("repr([h, K(), Own()])", "[<function h>, <solution.K object>, Own(1)]"),
    "a dict of objects": ('str({"f": h})', "{'f': <function h>}"),
    "a tuple, a set, a frozenset": (
        "repr(((h,), {h}, frozenset([h])))",
        "((<function h>,), {<function h>}, frozenset({<function h>}))",
    ),
    "a deque": ("repr(collections.deque([h]))", "deque([<function h>])"),
    "an OrderedDict": ("repr(collections.OrderedDict(f=h))", "OrderedDict([('f', <function h>)])"),
    "a defaultdict's factory": (
        "repr(collections.defaultdict(h))",
        "defaultdict(<function h>, {})",
    ),
    "an exception holding an object": ("repr(ValueError(h))", "ValueError(<function h>)"),
    "str() of an exception holding objects": (
        "str(Exception(h, K()))",
        "(<function h>, <solution.K object>)",
    ),
    "a module surface": ("repr(np.random)", "<module 'numpy.random' (judge surface)>"),
}

# name: (statements that raise, uncaught, an error showing an object; what its message holds)
RAISED_ROUTES = {
    "raise ValueError(function)": ("raise ValueError(h)", "ValueError (line"),
    "a KeyError of an instance": ("{}[K()]", "KeyError (line"),
    "dict.pop of a function": ("{}.pop(h)", "<function h>"),
    "set.remove of an instance": ("set().remove(K())", "<solution.K object>"),
    "list.index of a function": ("[1].index(h)", "<function h> is not in list"),
    "assert with an object": ("assert False, K()", "<solution.K object>"),
    "the learner's exception holding a container": ("raise Oops([h, K()])", "[<function h>, <so"),
}

# name: (a print of objects, what it prints)
PRINTED_ROUTES = {
    "print of objects": (
        "print(h, K(), [h], counting(), sep=' | ')",
        "<function h> | <solution.K object> | [<function h>] | <generator object counting>\n",
    ),
    "print with objects as sep and end": (
        "print(1, 2, sep=h, end=K())",
        "1<function h>2<solution.K object>",
    ),
}

# name: a returned value holding objects (described, never compared, by the trusted side)
RETURNED_VALUES = {
    "a function": "h, 0",
    "learner objects in the tokens": "[K(), h], 1",
    "an object array": "np.array([h, iter([1])], dtype=object), 2",
}

CHANNELS = {
    "printed": "print(text)\nreturn [], 0",
    "returned": "return [text], 0",
    "raised": "raise ValueError(text)",
}


def grade_first_case(judge: Judge, body: str) -> Report:
    report, _ = grade(judge, on_first_case(body, MODULE))
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5, report.tests[1]
    return report


def assert_no_address(report: Report) -> None:
    text = report.model_dump_json()
    assert not ADDRESS.search(text), ADDRESS.findall(text)


def test_the_honest_reports_hold_nothing_like_an_address(hostile_judge: Judge) -> None:
    report = grade_first_case(hostile_judge, "pass")
    assert report.verdict == Verdict.accepted
    assert_no_address(report)  # so that a match below is the route's


@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("route", TEXT_ROUTES)
def test_no_route_to_a_default_repr_shows_an_address(
    hostile_judge: Judge, route: str, channel: str
) -> None:
    expression, shown = TEXT_ROUTES[route]
    report = grade_first_case(hostile_judge, f"text = {expression}\n{CHANNELS[channel]}")
    first = report.tests[0]
    if channel == "printed":
        assert shown in (first.output or ""), first.output
    else:
        assert report.verdict == (
            Verdict.runtime_error if channel == "raised" else Verdict.wrong_answer
        )
        assert shown in (first.message or ""), first.message
    assert_no_address(report)


@pytest.mark.parametrize("route", RAISED_ROUTES)
def test_no_error_showing_an_object_shows_an_address(hostile_judge: Judge, route: str) -> None:
    statements, shown = RAISED_ROUTES[route]
    report = grade_first_case(hostile_judge, statements)
    assert report.verdict == Verdict.runtime_error
    assert shown in (report.tests[0].message or ""), report.tests[0].message
    assert_no_address(report)


@pytest.mark.parametrize("route", PRINTED_ROUTES)
def test_no_print_of_objects_shows_an_address(hostile_judge: Judge, route: str) -> None:
    statements, printed = PRINTED_ROUTES[route]
    report = grade_first_case(hostile_judge, f"{statements}\nreturn [], 0")
    assert report.tests[0].output == printed
    assert_no_address(report)


@pytest.mark.parametrize("value", RETURNED_VALUES)
def test_no_returned_object_is_described_with_an_address(hostile_judge: Judge, value: str) -> None:
    report = grade_first_case(hostile_judge, f"return {RETURNED_VALUES[value]}")
    assert report.verdict == Verdict.wrong_answer
    assert_no_address(report)


@pytest.mark.parametrize(
    "body",
    ["return object.__repr__(h)", "return [super(K, K()).__repr__()], 0"],
    ids=["object.__repr__", "super().__repr__"],
)
def test_the_address_printing_reprs_cannot_be_named(hostile_judge: Judge, body: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(body, MODULE))
    assert_nothing_ran(report, Verdict.rejected, "__repr__")
    assert_no_address(report)


ORDINARY = """
print(1, -2.5, 1e-300, 2**70, 1j, True, None, "s", b"b", range(3))
print([1, 2.5], {"a": (1, None)}, {1, 2}, frozenset(), collections.deque([1], maxlen=2))
print(np.arange(3), np.array([[1.5, 2.0]]), repr(np.array([0.1, 2])), np.float64(2.5))
print(repr(np.float64(2.5)), repr(np.int8(3)), np.dtype("f8"), repr(np.dtype("f8")))
print(Own(), [Own()], f"{Own()!r}", "%r" % (Own(),), repr(ValueError("x")), ValueError("x"))
print(K, np.random, {"f": Own()}, str.format("{0!r:>8}", Own()))
return [], 0
"""
ORDINARY_PRINTED = (
    "1 -2.5 1e-300 1180591620717411303424 1j True None s b'b' range(0, 3)\n"
    "[1, 2.5] {'a': (1, None)} {1, 2} frozenset() deque([1], maxlen=2)\n"
    "[0 1 2] [[1.5 2. ]] array([0.1, 2. ]) 2.5\n"
    "np.float64(2.5) np.int8(3) float64 dtype('float64')\n"
    "Own(1) [Own(1)] Own(1) Own(1) ValueError('x') x\n"
    "<class 'solution.K'> <module 'numpy.random' (judge surface)> {'f': Own(1)}   Own(1)\n"
)


def test_ordinary_reprs_are_unchanged(hostile_judge: Judge) -> None:
    report = grade_first_case(hostile_judge, ORDINARY)
    assert report.tests[0].output == ORDINARY_PRINTED
