"""Arrays of Python objects are data, never numpy operands; numeric arrays are untouched."""

from __future__ import annotations

import pytest

from sandbox.policy import Policy, compile_learner


def run(source: str):
    namespace = Policy().namespace()
    exec(compile_learner("import numpy as np\n" + source), namespace)
    return namespace["f"]()


def with_objects(body: str) -> str:
    """A learner f() that has an array of Python objects ``a`` and then runs ``body``."""
    return f"def f():\n    a = np.array([3, 1, 2], dtype=object)\n    {body}\n"


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


@pytest.mark.parametrize("base", ["np.random.Generator", "np.random.RandomState", "np.float64"])
def test_classes_cannot_derive_from_numpys_other_classes(base: str) -> None:
    with pytest.raises(Exception, match="classes cannot derive from numpy's"):
        run(f"class G({base}):\n    pass\ndef f():\n    return 0\n")


def test_typing_aliases_cannot_patch_the_standard_library() -> None:
    source = "import typing\ndef f():\n    typing.Sequence.index = len\n"
    with pytest.raises(Exception, match="cannot modify typing objects"):
        run(source)


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


def test_arrays_still_take_items_shape_and_a_subclass_its_own_attributes() -> None:
    source = (
        "class Tagged(np.ndarray):\n    pass\n"
        "def f():\n"
        "    a = np.zeros(6)\n    a[0] = 1.0\n    a[1] += 2.0\n    a.shape = (2, 3)\n"
        "    t = Tagged((2,))\n    t.label = 'x'\n"
        "    return a.tolist(), t.label\n"
    )
    assert run(source) == ([[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]], "x")


def test_numpy_vectorize_still_vectorises() -> None:
    source = "def f():\n    return np.vectorize(lambda v: v * 2)(np.arange(3)).tolist()\n"
    assert run(source) == [0, 2, 4]


def test_copy_never_writes_into_an_array_a_subclass_hands_back() -> None:
    source = (
        "import copy\n"
        "held = np.array(['a', 'b', 'c'], dtype=object)\n"
        "class Sneaky(np.ndarray):\n"
        "    def copy(self, *args, **kwargs):\n"
        "        return held\n"
        "def f():\n"
        "    copy.deepcopy(Sneaky((3,)))\n"
        "    copy.copy(Sneaky((3,)))\n"
        "    return held.tolist()\n"
    )
    assert run(source) == ["a", "b", "c"]


def test_deepcopy_takes_only_a_plain_dict_as_its_memo() -> None:
    source = (
        "import copy\n"
        "class Memo(dict):\n    pass\n"
        "def f():\n    return copy.deepcopy([1], Memo())\n"
    )
    with pytest.raises(TypeError, match="memo must be a dict"):
        run(source)


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


def test_special_methods_cannot_be_decorated() -> None:
    source = (
        "class F:\n    @staticmethod\n    def __float__():\n        return 1.0\n"
        "def f():\n    return 0\n"
    )
    with pytest.raises(Exception, match="cannot be decorated"):
        run(source)


@pytest.mark.parametrize("method", ["__float__", "__len__", "__getitem__", "__bool__"])
def test_an_array_subclass_keeps_numpys_own_protocol(method: str) -> None:
    source = (
        f"class Sub(np.ndarray):\n    def {method}(self, *args):\n        return 1\n"
        "def f():\n    return 0\n"
    )
    with pytest.raises(Exception, match=f"cannot define {method}"):
        run(source)
