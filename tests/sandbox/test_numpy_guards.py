"""Object arrays cannot be ordered in place by numpy; numeric arrays are untouched."""

from __future__ import annotations

import pytest

from sandbox.compiler import compile_learner
from sandbox.policy import Policy


def run(source: str):
    namespace = Policy().namespace()
    exec(compile_learner("import numpy as np\n" + source), namespace)
    return namespace["f"]()


@pytest.mark.parametrize(
    "expression",
    [
        "np.argmax(a)",
        "np.max(a)",
        "a.argmax()",
        "a.sort()",
        "np.ndarray.sort(a)",
        "type(a).argsort(a)",
        "np.maximum.reduce(a)",
        "np.searchsorted(a, 2)",
    ],
)
def test_ordering_an_object_array_is_refused(expression: str) -> None:
    source = f"def f():\n    a = np.array([3, 1, 2], dtype=object)\n    return {expression}\n"
    with pytest.raises(Exception, match="array of Python objects is not available"):
        run(source)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("int(np.argmax(a))", 0),
        ("float(np.max(a))", 3.0),
        ("float(np.maximum.reduce(a))", 3.0),
        ("[float(x) for x in np.sort(a)]", [1.0, 2.0, 3.0]),
        ("int(np.searchsorted(np.cumsum(a), 4.0, side='right'))", 1),
        ("sorted(np.array([3, 1], dtype=object))", [1, 3]),
        ("max(np.array([3, 1], dtype=object))", 3),
    ],
)
def test_numeric_arrays_and_python_ordering_still_work(expression: str, expected) -> None:
    source = (
        "def f():\n    a = np.array([3.0, 1.0, 2.0])\n    a.sort()\n    a = a[::-1]\n"
        f"    return {expression}\n"
    )
    assert run(source) == expected
