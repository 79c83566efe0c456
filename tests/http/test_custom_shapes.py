"""What `[custom] types`, `bounds` and `same_length` refuse and accept, over HTTP, on every
exercise that declares them: each mistake in a learner's input is a 422 naming its exact position
and what was due, before any code runs; what fits is graded by the reference.

The bad inputs are made from each exercise's own first example, walked alongside its declared
type, so the tests hold for any exercise that declares one. The last test sends a learner's odd
inputs to a real `judge serve`."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR, Catalog, Exercise
from app.grading.compare import TypeSpec
from app.grading.judge import Judge
from tests.inputs import nested, refused_detail

CATALOG = Catalog.load()
# (exercise, parameter) for every declaration found by walking the exercises.
TYPES = [(e, name) for e in CATALOG for name in e.input_caps.types]
BOUNDS = [(e, name) for e in CATALOG for name in e.input_caps.bounds]
GROUPS = [(e, group) for e in CATALOG for group in e.input_caps.same_length]
Path = tuple[int, ...]


def _id(pair: tuple[Exercise, Any]) -> str:
    return f"{pair[0].id}.{pair[1]}"


@pytest.fixture
def api(make_client: Callable[..., InProcessClient], judge: Judge) -> InProcessClient:
    return make_client(judge, exercises_dir=EXERCISES_DIR)


def test_the_exercises_declare_types_bounds_and_lengths() -> None:
    # Otherwise the tests below would test nothing.
    assert TYPES and BOUNDS and GROUPS


def _nodes(value: Any, spec: TypeSpec, path: Path = ()) -> Iterator[tuple[Path, Any, TypeSpec]]:
    """Every position of a value of type ``spec``, in reading order, with its value and type."""
    yield path, value, spec
    if spec.name in ("list", "tuple"):
        for i, item in enumerate(value):
            item_spec = spec.items[0] if spec.name == "list" else spec.items[i]
            yield from _nodes(item, item_spec, (*path, i))


def _first(exercise: Exercise, name: str, kind: str) -> tuple[dict[str, Any], Path, Any, TypeSpec]:
    """The first example whose ``name`` holds a ``kind``, and the first position of one."""
    spec = exercise.input_caps.types[name]
    for case in exercise.cases:
        found = [n for n in _nodes(case.input[name], spec) if n[2].name == kind]
        if found:
            return (case.input, *found[0])
    raise AssertionError(f"{exercise.id}: no example's {name} holds a {kind}")


def _with(
    exercise: Exercise, name: str, path: Path, new: Any, base: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An example (the first unless ``base``), the entry at ``path`` of ``name`` set to ``new``."""
    given = copy.deepcopy(exercise.cases[0].input if base is None else base)
    if not path:
        given[name] = new
        return given
    holder = given[name]
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = new
    return given


def _where(name: str, path: Path) -> str:
    return f"input.{name}" + "".join(f"[{i}]" for i in path)


def _graded(api: InProcessClient, exercise: Exercise, given: dict[str, Any]) -> None:
    """``given`` is run, and the reference answered it."""
    response = api.post(
        f"/api/exercises/{exercise.id}/runs", json={"code": exercise.starter_code, "input": given}
    )
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert test["expected"] is not None, test
    assert "no verdict" not in (test["message"] or ""), test


def _types_in(spec: TypeSpec) -> set[str]:
    return {spec.name} | {name for item in spec.items for name in _types_in(item)}


def _declared_with(kind: str) -> list[tuple[Exercise, str]]:
    found = [(e, n) for e, n in TYPES if kind in _types_in(e.input_caps.types[n])]
    assert found, f"no declared type holds a {kind}"
    return found


@pytest.mark.parametrize("declared", _declared_with("tuple"), ids=_id)
def test_a_tuple_of_the_wrong_length_is_a_422_at_its_position(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    base, path, value, spec = _first(exercise, name, "tuple")
    count = len(spec.items)
    url = f"/api/exercises/{exercise.id}"
    longer = refused_detail(api, url, _with(exercise, name, path, [*value, value[-1]], base))
    assert longer == (
        f"{_where(name, path)}: expected a list of {count} items ({spec}), got {count + 1} items"
    )
    shorter = refused_detail(api, url, _with(exercise, name, path, value[:-1], base))
    assert shorter.endswith(f"got {count - 1} item" + ("" if count == 2 else "s")), shorter
    given = {"tokens": value[0]}
    detail = refused_detail(api, url, _with(exercise, name, path, given, base))
    assert (
        detail == f"{_where(name, path)}: expected a list of {count} items ({spec}), got an object"
    )


@pytest.mark.parametrize("declared", _declared_with("int"), ids=_id)
def test_an_int_given_a_fraction_a_bool_or_a_string_is_a_422_at_its_position(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    base, path, _, _ = _first(exercise, name, "int")
    url = f"/api/exercises/{exercise.id}"
    where = _where(name, path)
    for given, got in ((1.5, "1.5"), (True, "a boolean"), ("3", "a string"), (None, "null")):
        detail = refused_detail(api, url, _with(exercise, name, path, given, base))
        assert detail == f"{where}: expected an integer, got {got}"
    huge = refused_detail(api, url, _with(exercise, name, path, 10**30, base))
    assert huge == f"{where}: integers must lie within ±(2**63 - 1); this one has 31 digits"
    _graded(api, exercise, _with(exercise, name, path, 3.0, base))  # 3.0 is the integer 3 in JSON


@pytest.mark.parametrize("declared", _declared_with("float"), ids=_id)
def test_a_float_takes_an_int_but_not_a_bool(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    base, path, value, _ = _first(exercise, name, "float")
    url = f"/api/exercises/{exercise.id}"
    detail = refused_detail(api, url, _with(exercise, name, path, False, base))
    assert detail == f"{_where(name, path)}: expected a number, got a boolean"
    _graded(api, exercise, _with(exercise, name, path, round(value), base))


@pytest.mark.parametrize("declared", TYPES, ids=_id)
def test_a_list_of_the_type_may_be_empty_unless_declared_nonempty(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    spec = exercise.input_caps.types[name]
    inner = [(p, s) for p, _, s in _nodes(exercise.cases[0].input[name], spec) if p]
    lists = [p for p, s in inner if s.name == "list"]
    url = f"/api/exercises/{exercise.id}"
    if lists:
        _graded(api, exercise, _with(exercise, name, lists[0], []))
    if spec.name == "list" and name in exercise.input_caps.nonempty:
        detail = refused_detail(api, url, _with(exercise, name, (), []))
        assert detail == f"input.{name}: an empty list; it needs at least one item"
    odd = (("a string", "a string"), (None, "null"), (7, "7"), (10**30, "an integer of 31 digits"))
    for given, got in odd:
        detail = refused_detail(api, url, _with(exercise, name, (), given))
        assert detail.startswith(f"input.{name}: expected "), detail
        assert detail.endswith(f", got {got}"), detail


@pytest.mark.parametrize("declared", BOUNDS, ids=_id)
def test_the_first_entry_outside_the_bounds_is_a_422_naming_it_and_the_bound_is_graded(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    bounds = exercise.input_caps.bounds[name]
    first: Path = ()
    last: Path = ()
    value = exercise.cases[0].input[name]
    while isinstance(value, list):
        first, last = (*first, 0), (*last, len(value) - 1)
        value = value[0]
    assert first != last, f"{exercise.id}: the first example's {name} holds one entry"
    url = f"/api/exercises/{exercise.id}"
    step = 1 if exercise.input_caps.item_types.get(name) == "int" else 0.5  # token ids: whole
    for end, outside in ((bounds.high, step), (bounds.low, -step)):
        if end is None:
            continue
        given = _with(exercise, name, last, end + 2 * outside)
        holder = given[name]
        for step in first[:-1]:
            holder = holder[step]
        holder[first[-1]] = end + outside
        detail = refused_detail(api, url, given)  # two entries outside: the first is named
        assert detail.startswith(f"{_where(name, first)}: expected a number "), detail
        assert detail.endswith(f", got {end + outside!r}"), detail
        _graded(api, exercise, _with(exercise, name, first, end))


def _group_id(pair: tuple[Exercise, tuple[str, ...]]) -> str:
    return f"{pair[0].id}.{'+'.join(pair[1])}"


@pytest.mark.parametrize("declared", GROUPS, ids=_group_id)
def test_parameters_that_pair_up_must_be_as_long(
    api: InProcessClient, declared: tuple[Exercise, tuple[str, ...]]
) -> None:
    exercise, group = declared
    first, other = group[0], group[-1]
    example = exercise.cases[0].input
    longer = {**example, other: [*example[other], example[other][-1]]}
    detail = refused_detail(api, f"/api/exercises/{exercise.id}", longer)
    count = len(example[first])
    assert detail == (
        f"input.{other}: {count + 1} items, but input.{first} has {count}; they pair up item "
        "by item, so they must be the same length"
    )
    both = {name: [*example[name], example[name][-1]] for name in group}
    _graded(api, exercise, {**example, **both})


SCALARS = [(e, name) for e in CATALOG for name in e.input_caps.scalars]


@pytest.mark.parametrize("declared", SCALARS, ids=_id)
def test_each_end_of_a_declared_scalar_range_is_graded(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    # A beam width far above the number of candidates, a temperature at its lowest: in range.
    exercise, name = declared
    allowed = exercise.input_caps.scalars[name]
    for end in (allowed.low, allowed.high):
        _graded(api, exercise, _with(exercise, name, (), end))


def _odd_inputs(exercise: Exercise, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """What a learner might type where a declared list goes: each must be refused."""
    example = exercise.cases[0].input
    spec = exercise.input_caps.types[name]
    nodes = list(_nodes(example[name], spec))
    leaf = next(path for path, _, s in nodes if s.name in ("int", "float"))
    yield "nested too deep", _with(exercise, name, (), nested(40))
    yield "a string", _with(exercise, name, (), str(example[name]))
    yield "null", _with(exercise, name, (), None)
    yield "a null inside", _with(exercise, name, leaf, None)
    yield "a huge number", _with(exercise, name, leaf, 10**400)
    yield "a bool", _with(exercise, name, (), True)
    yield "a bool inside", _with(exercise, name, leaf, False)
    yield "a string inside", _with(exercise, name, leaf, "1")
    for path, value, s in nodes:
        if s.name == "tuple":
            yield "a tuple one item longer", _with(exercise, name, path, [*value, value[-1]])
            break
    longest = exercise.input_caps.max_length
    yield "a list too long", _with(exercise, name, (), [example[name][0]] * (longest + 1))


LIST_TYPES = [(e, n) for e, n in TYPES if e.input_caps.types[n].name == "list"]


@pytest.mark.real_judge
@pytest.mark.parametrize("declared", LIST_TYPES, ids=_id)
def test_a_learners_odd_inputs_to_a_real_server_are_each_a_clear_422(
    real_client: httpx.Client, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    for label, given in _odd_inputs(exercise, name):
        response = real_client.post(
            f"/api/exercises/{exercise.id}/runs",
            json={"code": exercise.starter_code, "input": given},
        )
        assert response.status_code == 422, (label, response.text)
        detail = response.json()["detail"]
        assert detail.startswith(f"input.{name}"), (label, detail)
        assert "Traceback" not in detail and "reference" not in detail, (label, detail)


@pytest.mark.real_judge
@pytest.mark.parametrize("declared", LIST_TYPES, ids=_id)
def test_the_longest_list_allowed_is_graded_by_a_real_server(
    real_client: httpx.Client, declared: tuple[Exercise, str]
) -> None:
    # Its partners of [custom] same_length made as long: the reference answers every item.
    exercise, name = declared
    example = exercise.cases[0].input
    partners = {name}.union(*(g for g in exercise.input_caps.same_length if name in g))
    longest = exercise.input_caps.max_length
    given = {**example, **{n: [example[n][0]] * longest for n in partners}}
    response = real_client.post(
        f"/api/exercises/{exercise.id}/runs", json={"code": exercise.starter_code, "input": given}
    )
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert test["expected"] is not None and "no verdict" not in (test["message"] or ""), test


SHAPED = [(e, name) for e in CATALOG for name in e.input_caps.shapes]
INDICES = [(e, name) for e in CATALOG for name in e.input_caps.indices]


def test_the_exercises_declare_shapes_and_indices() -> None:
    assert SHAPED and INDICES


def _longer(value: Any, axis: int, outer: bool = True) -> Any:
    """``value`` with one more entry along ``axis``: its last row again on the first axis, zeros
    at the end of every row on another (a row that is a distribution stays one)."""
    if axis > 0:
        return [_longer(row, axis - 1, outer=False) for row in value]
    return [*value, copy.deepcopy(value[-1]) if outer else _zeros(value[-1])]


def _zeros(value: Any) -> Any:
    return [_zeros(item) for item in value] if isinstance(value, list) else 0.0


@pytest.mark.parametrize("declared", SHAPED, ids=_id)
def test_a_dimension_that_disagrees_with_an_earlier_parameters_is_a_422_naming_both(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    shapes = exercise.input_caps.shapes
    earlier = {e.size for n in list(shapes)[: list(shapes).index(name)] for e in shapes[n]}
    shared = [axis for axis, e in enumerate(shapes[name]) if e.size in earlier]
    example = next(c.input for c in exercise.cases if all(c.input[n] for n in shapes))
    url = f"/api/exercises/{exercise.id}"
    for axis in shared:
        extent = shapes[name][axis]
        given = {**example, name: _longer(example[name], axis)}
        detail = refused_detail(api, url, given)
        assert detail.startswith(f"input.{name}: "), detail
        assert f" are {extent.size}" in detail or f" is {extent.size}" in detail, detail
        assert detail.endswith(f"so {name} needs {extent} = {_extent_of(example, name, axis)}")
    if not shared:  # the first to hold its sizes: it fixes them, so any length is graded
        assert all(e.size not in earlier for e in shapes[name])


def _extent_of(example: dict[str, Any], name: str, axis: int) -> int:
    value = example[name]
    for _ in range(axis):
        value = value[0]
    return len(value)


@pytest.mark.parametrize("declared", INDICES, ids=_id)
def test_an_index_outside_its_size_is_a_422_naming_it_and_each_end_is_graded(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    size = exercise.input_caps.indices[name]
    example = next(c.input for c in exercise.cases if c.input[name])
    holder, axis = next(
        (n, axis)
        for n, extents in exercise.input_caps.shapes.items()
        for axis, e in enumerate(extents)
        if e.size == size and e.offset == 0
    )
    count = _extent_of(example, holder, axis)
    url = f"/api/exercises/{exercise.id}"
    for outside in (count, -1):
        detail = refused_detail(api, url, _with(exercise, name, (0,), outside, example))
        assert detail.startswith(
            f"input.{name}[0]: expected an index of {size}, from 0 to {count - 1} ("
        ), detail
        assert detail.endswith(f"got {outside}"), detail
    for end in (0, count - 1):
        _graded(api, exercise, _with(exercise, name, (0,), end, example))


SUPPORT = [(e, name) for e in CATALOG for name in e.input_caps.support]


@pytest.mark.parametrize("declared", SUPPORT, ids=_id)
def test_an_entry_its_row_gives_probability_0_is_a_422_naming_both(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    rows_name = exercise.input_caps.support[name]
    example = next(c.input for c in exercise.cases if c.input[name])
    token = int(example[name][0])
    width = len(example[rows_name][0])
    other = (token + 1) % width
    ruled_out = copy.deepcopy(example)
    ruled_out[rows_name][0] = [1.0 if t == other else 0.0 for t in range(width)]
    detail = refused_detail(api, f"/api/exercises/{exercise.id}", ruled_out)
    assert detail == (
        f"input.{name}[0]: token {token} has probability 0.0 in input.{rows_name}[0], so it "
        "cannot have been drawn from that row"
    )
    _graded(api, exercise, example)
