"""What `[custom] probabilities` and `[custom] nonempty` refuse, over HTTP, on every exercise that
declares them: a learner's input outside the rule's domain is a 422 naming the parameter before
any code runs, and an input inside it (round-off included) is graded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR, Catalog, Exercise
from app.grading import BadInput, validate
from app.grading.judge import Judge
from tests.inputs import refused_detail

CATALOG = Catalog.load()
# (exercise, parameter) for every declaration found by walking the exercises.
PROBABILITIES = [(e, name) for e in CATALOG for name in e.input_caps.probabilities]
NONEMPTY = [(e, name) for e in CATALOG for name in e.input_caps.nonempty]


def _id(pair: tuple[Exercise, str]) -> str:
    return f"{pair[0].id}.{pair[1]}"


@pytest.fixture
def api(make_client: Callable[..., InProcessClient], judge: Judge) -> InProcessClient:
    return make_client(judge, exercises_dir=EXERCISES_DIR)


def _with(exercise: Exercise, name: str, value: Any) -> dict[str, Any]:
    """The exercise's first example, with ``name`` set to ``value``."""
    return {**exercise.cases[0].input, name: value}


def test_the_section_declares_distributions_and_nonempty_lists() -> None:
    # Otherwise the tests below would test nothing.
    assert PROBABILITIES and NONEMPTY


NOT_DISTRIBUTIONS = [
    ([0.5, 0.6], "not a probability distribution: its entries add up to 1.1, not 1"),
    ([0.5, 0.4], "not a probability distribution: its entries add up to 0.9, not 1"),
    ([1.5, -0.5], "not a probability distribution: {name}[1] = -0.5 is negative"),
    ([1e308, 1e308], "not a probability distribution: {name}[0] = 1e+308 is above 1"),
    ([], "not a probability distribution: it is empty"),
    ([0.5, "0.5"], "{name}[1]: expected a number, got a string"),
]


@pytest.mark.parametrize(("given", "says"), NOT_DISTRIBUTIONS)
@pytest.mark.parametrize("declared", PROBABILITIES, ids=_id)
def test_a_list_that_is_no_distribution_is_a_422_naming_it(
    api: InProcessClient, declared: tuple[Exercise, str], given: list[Any], says: str
) -> None:
    exercise, name = declared
    detail = refused_detail(api, f"/api/exercises/{exercise.id}", _with(exercise, name, given))
    assert detail.startswith(f"input.{name}")
    assert says.format(name=name) in detail, detail


@pytest.mark.parametrize("declared", PROBABILITIES, ids=_id)
def test_a_distribution_off_by_round_off_is_graded(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    tolerance = exercise.input_caps.probabilities[name]
    given = _with(exercise, name, [0.1, 0.2, 0.7 - tolerance / 2])  # 0.1 + 0.2 is not 0.3
    validate(exercise, given)
    response = api.post(
        f"/api/exercises/{exercise.id}/runs",
        json={"code": exercise.starter_code, "input": given},
    )
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert test["expected"] in (0, 1, 2), test  # the reference's token: it ran
    with pytest.raises(BadInput, match="add up to"):
        validate(exercise, _with(exercise, name, [0.1, 0.2, 0.7 - 2 * tolerance]))


@pytest.mark.parametrize("declared", NONEMPTY, ids=_id)
def test_an_empty_list_or_array_is_a_422_naming_it(
    api: InProcessClient, declared: tuple[Exercise, str]
) -> None:
    exercise, name = declared
    url = f"/api/exercises/{exercise.id}"
    if exercise.parameters[name] == "list" or name in exercise.input_caps.types:
        detail = refused_detail(api, url, _with(exercise, name, []))
        assert detail == f"input.{name}: an empty list; it needs at least one item"
        return
    rows = len(exercise.cases[0].input[name])
    detail = refused_detail(api, url, _with(exercise, name, [[] for _ in range(rows)]))
    assert detail == (
        f"input.{name}: an empty array (shape [{rows}, 0]); every dimension needs at least one item"
    )
    spelt = refused_detail(api, url, _with(exercise, name, {"empty": [0, 3]}))
    assert spelt.startswith(f"input.{name}: an empty array (shape [0, 3])"), spelt
