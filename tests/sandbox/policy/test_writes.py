"""Writes by learner code: numeric arrays take items and shape; the standard library is never
patched."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


def test_typing_aliases_cannot_patch_the_standard_library() -> None:
    source = "import typing\ndef f():\n    typing.Sequence.index = len\n"
    with pytest.raises(Exception, match="cannot modify typing objects"):
        run(source)


def test_arrays_still_take_items_shape_and_a_subclass_its_own_attributes() -> None:
    source = (
        "class Tagged(np.ndarray):\n    pass\n"
        "def f():\n"
        "    a = np.zeros(6)\n    a[0] = 1.0\n    a[1] += 2.0\n    a.shape = (2, 3)\n"
        "    t = Tagged((2,))\n    t.label = 'x'\n"
        "    return a.tolist(), t.label\n"
    )
    assert run(source) == ([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]], "x")
