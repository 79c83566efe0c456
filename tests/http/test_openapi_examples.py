"""The API reference's examples are the judge's real answers for an exercise that exists."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgi_client import InProcessClient

from app import openapi_examples as examples
from app.catalog import EXERCISES_DIR, Catalog
from app.grading import BadInput, Judge, validate
from app.routes import exercise_public, exercise_summary
from app.schemas import ExercisePublic, ExerciseSummary, Health, Hint, Mode, Report


@pytest.fixture
def api(make_client: Callable[..., InProcessClient], judge: Judge) -> InProcessClient:
    return make_client(judge, exercises_dir=EXERCISES_DIR)


def _examples(node: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """(where, example) for every ``example`` in the OpenAPI document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "example":
                yield where, value
            elif key == "examples" and isinstance(value, list):
                yield from ((where, item) for item in value)
            else:
                yield from _examples(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _examples(item, f"{where}/{index}")


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    tests = [{**test, "duration_ms": None} for test in report["tests"]]
    return {**report, "duration_ms": None, "tests": tests}


def test_every_example_of_the_api_reference_fits_its_model(api: InProcessClient) -> None:
    document = api.get("/openapi.json").json()
    found = dict(_examples(document["paths"]))
    assert found, "the API reference shows no example"
    models = {
        "//api/exercises/get/responses/200": lambda v: [ExerciseSummary(**item) for item in v],
        "//api/exercises/{exercise_id}/get/responses/200": ExercisePublic.model_validate,
        "//api/exercises/{exercise_id}/submissions/post/responses/200": Report.model_validate,
        "//api/exercises/{exercise_id}/runs/post/responses/200": Report.model_validate,
        "//api/exercises/{exercise_id}/hints/{n}/get/responses/200": Hint.model_validate,
        "//api/health/get/responses/200": Health.model_validate,
    }
    for prefix, model in models.items():
        (example,) = [value for where, value in found.items() if where.startswith(prefix)]
        model(example)
    ids = {exercise.id for exercise in Catalog.load()}
    path_ids = [v for where, v in _examples(document["paths"]) if where.endswith("exercise_id")]
    named = [v for where, v in _examples(document["paths"]) if "parameters" in where]
    assert examples.EXERCISE_ID in ids and set(named) & ids and set(path_ids) <= ids


def test_the_exercise_examples_are_the_exercise_as_the_api_serves_it() -> None:
    catalog = Catalog.load()
    exercise = catalog.get(examples.EXERCISE_ID)
    assert exercise is not None
    served = exercise_public(exercise).model_dump(mode="json")
    shown = examples.EXERCISE
    assert served["statement"].startswith(shown["statement"])
    # What a client acts on must be the exercise's; the prose around it (summary, related
    # links) may be reworded by the exercise's author without the reference going stale.
    for field in ("id", "title", "entry_point", "starter_code", "tests", "limits", "hint_count"):
        assert served[field] == shown[field], field
    listed = {item.id: exercise_summary(item).model_dump(mode="json") for item in catalog}
    for summary in examples.SUMMARIES:
        assert listed[summary["id"]]["title"] == summary["title"]


def test_the_report_examples_are_what_grading_the_example_code_gives(judge: Judge) -> None:
    exercise = Catalog.load().get(examples.EXERCISE_ID)
    assert exercise is not None
    run = judge.grade(exercise, examples.CODE, Mode.run).model_dump(mode="json")
    assert _timeless(run) == _timeless(examples.RUN_REPORT)
    custom = judge.run_custom(exercise, examples.CODE, examples.CUSTOM_INPUT)
    assert _timeless(custom.model_dump(mode="json")) == _timeless(examples.CUSTOM_REPORT)
    with pytest.raises(BadInput) as refused:
        validate(exercise, {**examples.CUSTOM_INPUT, "probs": "0.5"})
    assert refused.value.detail == examples.BAD_INPUT


def test_the_hint_examples_are_the_exercises_hints(api: InProcessClient) -> None:
    base = f"/api/exercises/{examples.EXERCISE_ID}/hints"
    assert api.get(f"{base}/1").json() == examples.HINT
    past = api.get(f"{base}/{examples.HINT['total'] + 1}")
    assert (past.status_code, past.json()["detail"]) == (404, examples.NO_SUCH_HINT)
