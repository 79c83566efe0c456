"""Guarded numpy callables keep working on numeric data."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("np.maximum(np.array([1.0, 5.0]), 2.0).tolist()", [2.0, 5.0]),
        ("np.add.outer([1, 2], [10, 20]).tolist()", [[11, 21], [12, 22]]),
        ("np.maximum.accumulate([1, 3, 2]).tolist()", [1, 3, 3]),
        ("float(np.add.reduce(np.array([0.5, 0.25])))", 0.75),
        ("repr(np.exp)", "<ufunc 'exp'>"),
        ("[float(v) for v in map(np.sqrt, [4.0, 9.0])]", [2.0, 3.0]),
        ("float(np.linalg.norm(np.array([3.0, 4.0])))", 5.0),
    ],
)
def test_ufuncs_keep_their_methods_on_numeric_data(expression: str, expected) -> None:
    assert run(f"def f():\n    return {expression}\n") == expected


def test_numpy_vectorize_still_vectorises() -> None:
    source = "def f():\n    return np.vectorize(lambda v: v * 2)(np.arange(3)).tolist()\n"
    assert run(source) == [0, 2, 4]


def test_guarded_methods_print_as_python_names_them() -> None:
    # A method guard is made on every read (no functools.wraps there), but still named.
    source = (
        "def f():\n"
        "    g = np.random.default_rng(0)\n"
        "    found = [np.zeros(1).sum, np.float64(1).item, np.maximum.reduce, g.random,\n"
        "             np.cumsum, np.ndarray.sum]\n"
        "    return [repr(m) for m in found]\n"
    )
    assert run(source) == [
        "<function ndarray.sum>",
        "<function float64.item>",
        "<function ufunc.reduce>",
        "<function Generator.random>",
        "<function cumsum>",
        "<function ndarray.sum>",
    ]
