"""Learner classes: numpy never takes their instances, no numpy or number bases, array
subclasses keep numpy's own protocol."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


@pytest.mark.parametrize("base", ["np.random.Generator", "np.random.RandomState", "np.float64"])
def test_classes_cannot_derive_from_numpys_other_classes(base: str) -> None:
    with pytest.raises(Exception, match="classes cannot derive from numpy's"):
        run(f"class G({base}):\n    pass\ndef f():\n    return 0\n")


def test_learner_objects_meet_arrays_through_their_own_methods_only() -> None:
    source = (
        "class Scale:\n    def __rmul__(self, other):\n        return ('scaled', other.tolist())\n"
        "def f():\n    return np.zeros(2) * Scale()\n"
    )
    assert run(source) == ("scaled", [0.0, 0.0])
    with pytest.raises(Exception, match="numpy cannot take objects of your own class Scale"):
        run("class Scale:\n    pass\ndef f():\n    return np.array([Scale()], dtype=object)\n")


@pytest.mark.parametrize("base", ["float", "int", "str", "complex"])
def test_classes_cannot_derive_from_what_numpy_takes_as_a_number(base: str) -> None:
    with pytest.raises(Exception, match=f"classes cannot derive from {base}"):
        run(f"class F({base}):\n    pass\ndef f():\n    return 0\n")


@pytest.mark.parametrize("method", ["__float__", "__len__", "__getitem__", "__bool__"])
def test_an_array_subclass_keeps_numpys_own_protocol(method: str) -> None:
    source = (
        f"class Sub(np.ndarray):\n    def {method}(self, *args):\n        return 1\n"
        "def f():\n    return 0\n"
    )
    with pytest.raises(Exception, match=f"cannot define {method}"):
        run(source)
