"""The standard modules' surfaces and numpy's classes are guarded like numpy's functions."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run, with_objects


@pytest.mark.parametrize(
    "statement",
    [
        "import random\n    random.shuffle(a)",
        "import bisect\n    bisect.insort(a, 1)",
        "import functools\n    functools.reduce(lambda x, y: x, a)",
        "b = np.zeros(2)\n    b.dtype = np.dtype([('x', 'f8')])",
        "b = np.zeros(2)\n    b.strides = (0,)",
        "type(np.array([b'yy'])[0]).byteswap(np.array([b'yy'])[0])",
        "np.vectorize(lambda v: b'12345678', otypes=['V8'])(np.zeros(2))",
        "np.vectorize(lambda v: v)(a)",
        "np.ndarray((2,), 'V8')",
    ],
)
def test_the_standard_library_and_numpy_classes_keep_the_rules(statement: str) -> None:
    with pytest.raises(Exception, match="not available in the judge|Python objects"):
        run(with_objects(statement))
