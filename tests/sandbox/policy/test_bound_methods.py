"""A bound method reads every attribute it lacks off what it binds. The class of a learner's
bound method, reached as ``type(H().m)``, bound a numpy class, and reading through it gave that
class's raw method: ``type(H().m)(np.random.Generator, 1).permuted`` wrote into an object array
past every guard (found while profiling the guards, sixth session). ``type()`` refuses that
class, and a read through any bound method is a read on what it binds, under its rules."""

from __future__ import annotations

import re
from types import MethodType

import numpy as np
import pytest

from app.grading.judge import Judge
from app.schemas import Verdict
from sandbox.policy import Policy, PolicyError
from sandbox.policy.attributes import learner_attribute, learner_getattr
from sandbox.policy.numpy_access import EACH_TIME, sort_class
from sandbox.policy.refusal import ObjectArrayRefused
from tests.sandbox.hostile import assert_first_case_stopped, grade, on_first_case
from tests.sandbox.policy.learner import run

CLASS_REFUSED = "type() of a bound method is not available"

# The reproducer: the raw Generator.permuted, called with an object array as its output.
REPRODUCER = """
M = type(H().m)
a = np.array([3, 1, 2], dtype=object)
raw = M(np.random.Generator, 1).permuted
raw(np.random.default_rng(0), a, out=a)
return [], 0
"""
LEARNER_CLASS = """
class H:
    def m(self):
        return 1
"""


def test_the_reproducer_stops_at_type(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, on_first_case(REPRODUCER, module=LEARNER_CLASS))
    assert_first_case_stopped(report, Verdict.runtime_error, CLASS_REFUSED)


def test_type_never_gives_the_bound_method_class() -> None:
    type_of = Policy().namespace()["__builtins__"]["type"]

    class H:
        def m(self) -> int:
            return 1

    with pytest.raises(PolicyError, match=re.escape(CLASS_REFUSED)):
        type_of(H().m)
    assert type_of(H()) is H and type_of(len) is type(len)  # other values keep their class


@pytest.mark.parametrize("read", [learner_attribute, learner_getattr])
def test_a_read_through_a_bound_method_is_a_read_on_what_it_binds(read: object) -> None:
    bound = MethodType(np.random.Generator, 1)  # however learner code might come by one
    assert sort_class(MethodType) is EACH_TIME  # never the shortcut of a plain class
    permuted = read(bound, "permuted")  # type: ignore[operator]
    assert permuted is not np.random.Generator.permuted  # the guarded method, not the raw one
    objects = np.array([3, 1, 2], dtype=object)
    with pytest.raises(ObjectArrayRefused):
        permuted(np.random.default_rng(0), objects, out=objects)
    assert list(objects) == [3, 1, 2]
    with pytest.raises(AttributeError):  # the name rules apply too: no '_' names through it
        read(bound, "_private")  # type: ignore[operator]


def test_a_learners_bound_methods_work_as_ever() -> None:
    source = """
class Counter:
    def __init__(self):
        self.n = 0
    def bump(self, by=1):
        self.n += by
        return self.n
def f():
    c = Counter()
    bump = c.bump
    bump()
    getattr(c, "bump")(2)
    return c.n, callable(bump), str(bump).startswith("<bound method Counter.bump")
"""
    assert run(source) == (3, True, True)
