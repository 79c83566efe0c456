"""The default reprs without an address (``sandbox/policy/reprs.py``), in this process: what
they change in the interpreter, and what they leave alone. The routes learner code takes to
them are attacked in a real child by ``tests/sandbox/test_hostile_addresses.py``."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest

from sandbox.policy import Policy
from sandbox.policy.reprs import hide_addresses

ADDRESS = re.compile(r"0x[0-9a-f]{6,}", re.IGNORECASE)


@pytest.fixture(autouse=True, scope="module")
def policy() -> Policy:
    return Policy()  # hides the addresses in this process, as in the zygote


def test_the_changed_types_stay_immutable() -> None:
    for kind in (object, types.FunctionType, types.BuiltinFunctionType, np.random.Generator):
        with pytest.raises(TypeError, match="immutable"):
            kind.__repr__ = lambda self: ""  # type: ignore[method-assign]


def test_hiding_twice_changes_nothing() -> None:
    before = {kind: kind.__dict__["__repr__"] for kind in (object, types.FunctionType)}
    hide_addresses()
    assert {kind: kind.__dict__["__repr__"] for kind in before} == before


def test_a_class_made_afterwards_inherits_the_repr_without_address() -> None:
    class Later:
        pass

    class Spoken:
        def __repr__(self) -> str:
            return "Spoken()"

    later = Later()
    assert repr(later) == f"<{__name__}.{Later.__qualname__} object>"
    assert object.__repr__(later) == repr(later)  # the slot and the method agree
    assert repr([Spoken(), later]) == f"[Spoken(), {later!r}]"
    assert not ADDRESS.search(f"{later} {later!r} {Later().__str__()} {[].append}")


def test_reprs_that_never_showed_an_address_are_unchanged() -> None:
    values = [1, 2.5, "s", [1], {"a": 1}, np.arange(2), np.float64(1.5), ValueError("x"), int]
    assert [repr(value) for value in values] == [
        "1",
        "2.5",
        "'s'",
        "[1]",
        "{'a': 1}",
        "array([0, 1])",
        "np.float64(1.5)",
        "ValueError('x')",
        "<class 'int'>",
    ]
