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
        "np.partition(a, 1)",
        "np.nanpercentile(a, 50, overwrite_input=True)",
        "np.histogram(a)",
        "np.digitize([1], a)",
        "np.pad(a, 1, mode='maximum')",
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
        ("[int(c) for c in np.histogram(a, bins=2)[0]]", [1, 2]),
        ("float(np.nanpercentile(a, 50))", 2.0),
        ("np.pad(a, 1, mode='maximum').tolist()", [3.0, 3.0, 2.0, 1.0, 3.0]),
    ],
)
def test_numeric_arrays_and_python_ordering_still_work(expression: str, expected) -> None:
    source = (
        "def f():\n    a = np.array([3.0, 1.0, 2.0])\n    a.sort()\n    a = a[::-1]\n"
        f"    return {expression}\n"
    )
    assert run(source) == expected
