"""Every array numpy hands learner code is initialised; raw memory and structured dtypes are
refused."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("np.empty(4, dtype=np.uint8).tolist()", [0, 0, 0, 0]),
        ("np.empty((2, 2)).tolist()", [[0.0, 0.0], [0.0, 0.0]]),
        ("np.empty_like(np.ones(3)).tolist()", [0.0, 0.0, 0.0]),
        ("np.ndarray((3,)).tolist()", [0.0, 0.0, 0.0]),
        ("np.ndarray(shape=(2,), dtype=np.int64, order='F').tolist()", [0, 0]),
        (
            "np.divide(np.ones(3), 2.0, where=np.array([True, False, True])).tolist()",
            [0.5, 0.0, 0.5],
        ),
        (
            "np.add.outer([1.0, 2.0], [1.0], where=np.array([[False], [True]])).tolist()",
            [[0.0], [3.0]],
        ),
        ("Sub((2,)).tolist()", [0.0, 0.0]),
        ("np.pad(np.ones(1), (0, 2), mode='empty').tolist()", [1.0, 0.0, 0.0]),
        (
            "np.add(np.zeros(3), 1.0, out=(None,), where=[True, False, True]).tolist()",
            [1.0, 0.0, 1.0],
        ),
        (
            "[p.tolist() for p in np.modf(np.full(2, 1.5), out=(None, None), where=[False, True])]",
            [[0.0, 0.5], [0.0, 1.0]],
        ),
        ("np.clip(np.full(3, 5.0), 0, 1, where=[True, False, True]).tolist()", [1.0, 0.0, 1.0]),
        ("np.full(3, 5.0).clip(0, 1, where=[False, True, False]).tolist()", [0.0, 1.0, 0.0]),
        ("np.add.outer(np.ones(2), np.ones(1), out=(None,), where=False).tolist()", [[0.0], [0.0]]),
    ],
)
def test_new_arrays_are_always_initialised(expression: str, expected) -> None:
    source = f"class Sub(np.ndarray):\n    pass\ndef f():\n    return {expression}\n"
    assert run(source) == expected


@pytest.mark.parametrize(
    "expression",
    [
        "np.ndarray((2,), strides=(64,))",
        "np.ndarray((2,), offset=8)",
        "np.ndarray((2,), float, None, 8)",
    ],
)
def test_ndarray_over_foreign_memory_is_refused(expression: str) -> None:
    with pytest.raises(Exception, match="not available in the judge"):
        run(f"def f():\n    return {expression}\n")


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        (
            "np.ones(2, np.dtype({'names': ['a'], 'formats': ['u1'], 'itemsize': 64}))",
            "structured array",
        ),
        ("np.zeros(2, np.uint8).astype([('a', 'u1')])", "structured array"),
        ("np.zeros(1, dtype='V8')", "structured array"),
        ("np.array([b'yy'])[0].byteswap()", "bytes_.byteswap is not available"),
        ("np.array(['yy'])[0].byteswap()", "str_.byteswap is not available"),
    ],
)
def test_structured_arrays_and_flexible_byteswaps_are_refused(expression: str, says: str) -> None:
    with pytest.raises(Exception, match=says):
        run(f"def f():\n    return {expression}\n")


@pytest.mark.parametrize(
    "shadow", ["dtype = np.dtype(float)", "dtype = property(lambda self: np.dtype(float))"]
)
def test_an_array_subclass_cannot_hide_a_structured_dtype(shadow: str) -> None:
    # Aligned records have padding that astype leaves as it was (heap bytes, seen in testing):
    # the subclass's own ``dtype`` said float64, and the array came back.
    source = (
        f"class Records(np.ndarray):\n    {shadow}\n"
        "def f():\n"
        "    aligned = np.dtype([('a', np.uint8), ('b', np.float64)], align=True)\n"
        "    return Records((2,)).astype(aligned).tobytes()\n"
    )
    with pytest.raises(Exception, match="structured array"):
        run(source)
