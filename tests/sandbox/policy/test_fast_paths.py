"""The guards' shortcuts skip no rule: the classes they sort once, the names they found readable
once, the values they pass by exact type (numpy_access, attributes, kinds).

Each test first warms the shortcut the way everyday code does, then attacks through it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sandbox.policy import CompileFailure, PolicyError, attributes, compile_learner, numpy_access
from sandbox.policy.attributes import learner_getattr
from sandbox.policy.kinds import plain
from sandbox.policy.surfaces import Surface
from tests.sandbox.policy.learner import run, with_objects

# -- classes sorted once: the dtype, the name and the object are still asked every time -------


@pytest.mark.parametrize(
    "body",
    [
        # ndarray is sorted on the first read; an object array is the same class.
        "np.zeros(2).sum()\n    return a.sum()",
        "np.zeros(2).argmax\n    return a.argmax()",
        # a learner's array subclass, sorted on a numeric instance first
        "class Keys(np.ndarray):\n        pass\n    Keys((2,)).sort()\n"
        "    return Keys((2,)).astype(object)",
        # a bound method read while the array was numeric stays guarded on every call
        "clip = np.zeros(3).clip\n    return clip(a, None)",
        "np.zeros(2).resize\n    return 1",
        "np.float64(1).clip(0, 1)\n    return np.float64(1).clip(a, None)",
    ],
)
def test_a_class_sorted_once_keeps_every_rule(body: str) -> None:
    with pytest.raises(PolicyError):
        run(with_objects(body))


@pytest.mark.parametrize(
    "statement",
    [
        "setattr(Holder, '__bases__', (np.ndarray,))",
        "setattr(Holder, '__module__', 'numpy')",
        "setattr(Holder(), '__class__', np.ndarray)",
        "setattr(Holder, '__class__', np.ndarray)",
    ],
)
def test_learner_code_cannot_change_what_a_class_was_sorted_by(statement: str) -> None:
    # The premise of sorting a class once: its MRO, __module__ and instances' __class__ stay.
    source = f"class Holder:\n    pass\ndef f():\n    Holder().x = 1\n    {statement}\n"
    with pytest.raises(AttributeError, match="cannot set the attribute"):
        run(source)


@pytest.mark.parametrize(
    "source",
    [
        "class Holder:\n    __module__ = 'numpy'\n",
        "class Holder:\n    __class__ = property(lambda self: np.ndarray)\n",
        "class Holder:\n    pass\nHolder().__class__ = np.ndarray\n",
        "class Holder:\n    pass\nHolder.__bases__ = (np.ndarray,)\n",
    ],
)
def test_code_cannot_name_what_a_class_is_sorted_by(source: str) -> None:
    with pytest.raises(CompileFailure, match="starts with"):
        compile_learner(source)


class _Pretender:
    """A class whose instances say they are arrays (no surface offers one today; a future one,
    like unittest.mock's spec=, would): isinstance believes ``__class__``."""

    __class__ = property(lambda self: np.ndarray)  # type: ignore[assignment]

    def sort(self) -> None:
        pass


class _ForwardingObject:
    """Like weakref.proxy: a C-level answer for ``__class__`` (here, by __getattribute__)."""

    def __getattribute__(self, name: str) -> Any:
        if name == "__class__":
            return np.ndarray
        return object.__getattribute__(self, name)

    def sort(self) -> None:
        pass


@pytest.mark.parametrize("kind", [_Pretender, _ForwardingObject])
def test_an_object_whose_class_lies_gets_the_whole_walk(kind: type) -> None:
    pretender = kind()
    assert isinstance(pretender, np.ndarray)
    for _ in range(2):  # the second time, after the class was sorted
        guarded = numpy_access.guard_attribute(pretender, "sort", pretender.sort)
        assert guarded != pretender.sort  # wrapped, as for any array's method
        with pytest.raises(PolicyError, match="ndarray.resize is not available"):
            numpy_access.guard_attribute(pretender, "resize", None)
        assert learner_getattr(pretender, "sort") != pretender.sort


def test_a_module_is_refused_whatever_names_were_read_before() -> None:
    # No learner code holds a module (surfaces stand for them); were one to leak, a name read
    # on other objects first must not carry it past the module rule.
    learner_getattr([], "append")
    learner_getattr(np.zeros(1), "sum")
    with pytest.raises(PolicyError, match="modules are only reachable through import"):
        learner_getattr(np, "sum")
    with pytest.raises(PolicyError, match="modules are only reachable through import"):
        learner_getattr(np, "append")


def test_a_full_cache_still_sorts_every_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numpy_access, "SORTED_CLASSES", {})
    monkeypatch.setattr(attributes, "SORTED_CLASSES", numpy_access.SORTED_CLASSES)
    monkeypatch.setattr(numpy_access, "_SORTED_LIMIT", 0)
    with pytest.raises(PolicyError, match="Python objects"):
        run(with_objects("return a.sum()"))
    assert run("def f():\n    return float(np.ones(2).sum())\n") == 2.0
    assert numpy_access.SORTED_CLASSES == {}


# -- members read once on a sorted numpy class: the instance is still asked -------------------


@pytest.mark.parametrize(
    "body",
    [
        # a numeric array's sum read (and called) first: an object array's is still refused
        "np.ones(2).sum\n    np.ones(2).sum()\n    return a.sum",
        # a refusal is never remembered as a readable member
        "try:\n        np.zeros(2).resize\n    except Exception:\n        pass\n"
        "    return np.zeros(2).resize((3,))",
        # a numpy object's method read on numeric data first keeps its operand rule
        "g = np.random.default_rng(0)\n    g.shuffle(np.zeros(2))\n    return g.shuffle(a)",
    ],
)
def test_a_member_read_once_keeps_every_rule(body: str) -> None:
    with pytest.raises(PolicyError):
        run(with_objects(body))


class _Sneaky(np.ndarray):
    """An array subclass that shadows ``dtype`` (learner code may define one; it cannot make an
    object array of it, but the read rule must not rest on that)."""

    dtype = np.dtype(float)  # type: ignore[assignment]


def test_a_member_read_once_on_a_subclass_asks_numpys_own_dtype_every_time() -> None:
    numeric = np.zeros(2).view(_Sneaky)
    objects = np.array([1, 2], dtype=object).view(_Sneaky)
    for _ in range(2):  # the second time, after the member read was remembered
        assert callable(numpy_access.guard_attribute(numeric, "sum", numeric.sum))
        with pytest.raises(PolicyError, match="Python objects"):
            numpy_access.guard_attribute(objects, "sum", objects.sum)


def test_an_errors_args_read_once_still_read_as_its_message() -> None:
    source = (
        "def f():\n"
        "    found = []\n"
        "    for right in (np.array([1.5]), np.array([2.5])):\n"
        "        try:\n"
        "            np.array(['a']) + right\n"
        "        except TypeError as e:\n"
        "            found.append(e.args)\n"
        "    return found\n"
    )
    found = run(source)
    assert len(found) == 2
    assert all(type(argument) is str for args in found for argument in args), found


def test_what_an_object_array_may_read_is_still_read_after_a_numeric_one() -> None:
    body = "np.ones(2).shape\n    np.ones(2).copy()\n    return [a.shape, a.copy().tolist()]"
    assert run(with_objects(body)) == [(3,), [3, 1, 2]]


def test_a_full_member_cache_still_asks_every_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(numpy_access, "_MEMBER_READS", {})
    monkeypatch.setattr(numpy_access, "_MEMBER_READS_LIMIT", 0)
    with pytest.raises(PolicyError, match="Python objects"):
        run(with_objects("np.ones(2).sum()\n    return a.sum()"))
    with pytest.raises(PolicyError, match="ndarray.resize is not available"):
        run("def f():\n    np.zeros(2).resize\n")
    assert run("def f():\n    return float(np.ones(2).sum())\n") == 2.0
    assert numpy_access._MEMBER_READS == {}


# -- names found readable once: the object is still asked ------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        # 'sort' and 'resize' read on the learner's own object first, then on an array
        "Holder().sort\n    return a.sort()",
        "Holder().resize\n    return np.zeros(2).resize((3,))",
        "getattr(Holder(), 'view')\n    return getattr(a, 'view')()",
        # 'x' read on a list (a plain object) first, then on a module-like surface
        "Holder().missing_on_numpy\n    return np.missing_on_numpy",
    ],
)
def test_a_name_read_once_keeps_every_rule(body: str) -> None:
    source = "class Holder:\n    sort = resize = view = missing_on_numpy = 1\n" + with_objects(body)
    with pytest.raises(Exception, match="not available in the judge"):
        run(source)


def test_the_classes_read_by_exact_type_are_sorted_as_the_shortcut_reads_them() -> None:
    # learner_attribute reads names on these without looking their class up: that must be
    # what the lookup would have said.
    for cls, kind in ((Surface, numpy_access.AS_IS), (list, numpy_access.AS_IS)):
        assert numpy_access._sort(cls) is kind
        assert numpy_access._reports_its_own_class(cls)
    assert numpy_access._sort(np.ndarray) is numpy_access.ARRAY
    assert numpy_access._reports_its_own_class(np.ndarray)


@pytest.mark.parametrize(
    "expression",
    [
        "getattr(np, 'lib')",  # blocked, on a surface
        "getattr(np, '__dict__')",
        "getattr(tokens, '__class__')",  # underscore, on a list
        "getattr(tokens, 'gi_frame', None)",  # blocked, with a default
    ],
)
def test_names_read_by_exact_type_still_follow_the_name_rule(expression: str) -> None:
    source = (
        "def f():\n    tokens = []\n    tokens.append(np.maximum(1, 2))\n    np.cumsum\n"
        f"    return {expression}\n"
    )
    with pytest.raises(Exception, match="not available|not allowed|invalid attribute"):
        run(source)


@pytest.mark.parametrize(
    "expression",
    [
        "getattr(h, 'tofile')",  # a blocked name never becomes readable
        "getattr(h, '_x')",
        "'{0.__class__}'.format(h)",  # format stays the safe formatter's, however often read
        "str.format('{0.__class__}', h)",
    ],
)
def test_refused_names_stay_refused_after_everyday_reads(expression: str) -> None:
    source = (
        "class Holder:\n    tofile = x = 1\n"
        "def f():\n    h = Holder()\n    h.x\n    'a'.upper()\n    '{}'.format(1)\n"
        "    str.format('{}', 2)\n"
        f"    return {expression}\n"
    )
    with pytest.raises(Exception, match="not available|not allowed"):
        run(source)


# -- values passed by exact type ----------------------------------------------------------------


def test_only_numeric_arrays_of_numpys_own_class_pass_by_type() -> None:
    class Sub(np.ndarray):
        pass

    union = np.dtype(("i4", [("a", "i1"), ("b", "i1"), ("c", "i1"), ("d", "i1")]))
    assert plain(np.zeros(2)) and plain(1.5) and plain(np.float64(1)) and plain(None)
    assert not plain(np.zeros(2, dtype=object))
    assert not plain(np.zeros(2, dtype=[("a", "f8")]))
    assert not plain(np.zeros(2, dtype=union))  # kind 'i', but it has fields
    assert not plain(np.zeros(2).view(Sub))
    assert not plain([1.0]) and not plain((np.zeros(2),))


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("return np.maximum(np.array(5, dtype=object), 1)", "Python objects"),
        ("return np.add(1.0, 1.0, out=(a[:1],))", "Python objects"),
        ("return np.concatenate([np.zeros(1), a])", "Python objects"),
        ("return np.sort(x=a) if False else np.clip(1.0, a_min=a, a_max=None)", "Python objects"),
        (
            "union = np.dtype(('i4', [('a', 'i1'), ('b', 'i1'), ('c', 'i1'), ('d', 'i1')]))\n"
            "    return np.zeros(2, dtype=union)",
            "structured array",
        ),
        ("return np.zeros(4, np.uint8).view([('a', 'u1'), ('b', 'u1')])", "structured array"),
        ("return np.zeros(4, np.uint8)[1:].view('V3')", "structured array"),
    ],
)
def test_what_does_not_pass_by_type_is_asked_in_full(body: str, says: str) -> None:
    with pytest.raises(PolicyError, match=says):
        run(with_objects(body))


def test_arrays_that_are_not_plain_still_work() -> None:
    source = (
        "def f():\n"
        "    swapped = np.zeros(2).astype('>f8')\n"  # a dtype of its own, not numpy's singleton
        "    return [float(np.sum(swapped + 1)), np.float32(2).item(), np.ones(2).dtype.name]\n"
    )
    assert run(source) == [2.0, 2.0, "float64"]


# -- surfaces: members read directly, never written ------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "np.maximum = 1",
        "del np.maximum",
        "setattr(np, 'maximum', 1)",
        "getattr(np, '__dict__')",
        "vars(np)",
    ],
)
def test_a_surface_read_directly_is_still_read_only(statement: str) -> None:
    with pytest.raises(Exception, match="cannot|not available|not defined|invalid"):
        run(f"def f():\n    np.maximum\n    {statement}\n")
