"""Arrays of Python objects are inert data, never numpy operands; numeric arrays are untouched."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run, with_objects


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
        # selecting ufuncs return one of their operands after calling its __ge__/__bool__
        "np.maximum(a, a)",
        "np.minimum(a, 1)",
        "np.fmax(a, a)",
        "np.fmin(1, a)",
        "np.clip(a, 0, 1)",
        "a.clip(0, 1)",
        "np.ndarray.clip(a, 0, 1)",
        "np.logical_and(a, a)",
        "np.logical_or(a, a)",
        "np.add(1.0, 1.0, out=(a[:1],))",
        "np.maximum.accumulate(a)",
        "np.where(a, a, a)",
        "np.linalg.norm(a)",
        "np.concatenate([a, a])",
        "a.view()",
        "a.any()",
        "a.dot(a)",
    ],
)
def test_numpy_on_an_object_array_is_refused(expression: str) -> None:
    with pytest.raises(Exception, match="array of Python objects is not available"):
        run(with_objects(f"return {expression}"))


@pytest.mark.parametrize(
    "keys", ["Keys((3,), dtype=object)", "Keys((3,)).astype(object)", "np.ndarray.view(a, Keys)"]
)
def test_super_in_an_array_subclass_does_not_get_around_the_refusal(keys: str) -> None:
    source = (
        "class Keys(np.ndarray):\n"
        "    def __repr__(self):\n"  # Python calls it directly: no attribute guard on the way in
        "        return str(super().argmax())\n"
        "def f():\n"
        "    a = np.array([1, 2], dtype=object)\n"
        "    keys = KEYS\n"
        "    return repr(keys)\n"
    ).replace("KEYS", keys)
    with pytest.raises(Exception, match="Python objects"):
        run(source)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("a.tolist()", [3, 1, 2]),
        ("a.astype(float).tolist()", [3.0, 1.0, 2.0]),
        ("[int(x) for x in a]", [3, 1, 2]),
        ("(a + 1).tolist()", [4, 2, 3]),
        ("(a == 1).tolist()", [False, True, False]),
        ("sorted(a)", [1, 2, 3]),
        ("max(a)", 3),
        ("a[1:].copy().reshape(2, 1).tolist()", [[1], [2]]),
        ("a.shape", (3,)),
        ("np.maximum(a.astype(float), 2.0).tolist()", [3.0, 2.0, 2.0]),
    ],
)
def test_an_object_array_can_still_be_read_copied_and_converted(expression: str, expected) -> None:
    assert run(with_objects(f"return {expression}")) == expected


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


@pytest.mark.parametrize(
    "statement",
    [
        "a[0] = 1",
        "a[0] += 1",
        "a += 1",
        "a[:] = 0",
        "view = a[:2]\n    view[0] = 1",
        "a.T[0] = 1",
        "operator.setitem(a, 0, 1)",
        "operator.iadd(a, 1)",
        "np.copyto(a, 0)",
        "a.fill(0)",
        "np.ndarray.fill(a, 0)",
        "records = np.zeros(2, dtype=[('x', object)])\n    records[0] = (1,)",
        "records = np.zeros(2, dtype=[('x', object)])\n    records[0]['x'] = 1",
        "np.random.default_rng(0).permuted(a, out=a)",
        "np.random.default_rng(0).permuted(np.array([None] * 3, dtype=object), out=a)",
        "np.random.Generator.permuted(np.random.default_rng(0), a, out=a)",
        "np.random.RandomState(0).shuffle(a)",
        "np.random.shuffle(a)",
    ],
)
def test_an_object_array_cannot_be_changed(statement: str) -> None:
    with pytest.raises(Exception, match="cannot be changed|not available in the judge"):
        run("import operator\n" + with_objects(statement))


@pytest.mark.parametrize(
    "expression",
    [
        "np.zeros(1).clip(a, None)",
        "np.float64(0).clip(a, None)",
        "np.zeros(3).dot(a)",
        "np.zeros(3).searchsorted(a)",
        "np.random.uniform(a)",
        "np.zeros(1, dtype=[('x', 'f8')])[0].byteswap()",
        "np.zeros(1, dtype='V64')[0].byteswap()",
    ],
)
def test_numeric_methods_refuse_object_arrays_and_void_scalars_only_read(expression: str) -> None:
    with pytest.raises(Exception, match="not available in the judge"):
        run(with_objects(f"return {expression}"))


# A subclass of np.ndarray may define any plain name, ``dtype`` too; the rules read the dtype
# numpy itself sees (before, this class's object arrays passed as float and took writes).
SHADOWED_DTYPES = {
    "class attribute": "dtype = np.dtype(float)",
    "property": "dtype = property(lambda self: np.dtype(float))",
}


@pytest.mark.parametrize("shadow", list(SHADOWED_DTYPES))
@pytest.mark.parametrize(
    "body",
    [
        "return Keys((3,)).astype(object)",
        "return np.array(Keys((3,)), dtype=object, subok=True)",
        "return np.sort(Keys((3,)).astype(object))",
    ],
)
def test_an_array_subclass_cannot_hide_an_object_dtype(shadow: str, body: str) -> None:
    source = (
        f"class Keys(np.ndarray):\n    {SHADOWED_DTYPES[shadow]}\n"
        f"def f():\n    a = np.zeros(1)\n    {body}\n"
    )
    with pytest.raises(Exception, match="array of Python objects of your own subclass"):
        run(source)
