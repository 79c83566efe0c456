"""The API reference's examples are the judge's real answers for the exercises it serves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR, Catalog
from app.grading import Judge
from app.schemas import ExercisePublic, ExerciseSummary, Health, Hint, Mode, Report, Section

RUNS = "/api/exercises/{exercise_id}/runs"
SUBMISSIONS = "/api/exercises/{exercise_id}/submissions"
HINT = "/api/exercises/{exercise_id}/hints/{n}"


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


def _example(document: dict[str, Any], path: str, method: str, status: str) -> Any:
    return document["paths"][path][method]["responses"][status]["content"]["application/json"][
        "example"
    ]


def _body(document: dict[str, Any], path: str) -> Any:
    return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]["example"]


def _timeless(report: dict[str, Any]) -> dict[str, Any]:
    tests = [{**test, "duration_ms": None} for test in report["tests"]]
    return {**report, "duration_ms": None, "tests": tests}


def test_every_example_of_the_api_reference_fits_its_model(api: InProcessClient) -> None:
    document = api.get("/openapi.json").json()
    models: dict[tuple[str, str], Callable[[Any], Any]] = {
        ("/api/exercises", "get"): lambda v: [ExerciseSummary(**item) for item in v],
        ("/api/sections", "get"): lambda v: [Section(**item) for item in v],
        ("/api/exercises/{exercise_id}", "get"): ExercisePublic.model_validate,
        (SUBMISSIONS, "post"): Report.model_validate,
        (RUNS, "post"): Report.model_validate,
        (HINT, "get"): Hint.model_validate,
        ("/api/health", "get"): Health.model_validate,
    }
    for (path, method), model in models.items():
        model(_example(document, path, method, "200"))


def test_the_examples_name_only_exercises_that_exist(api: InProcessClient) -> None:
    document = api.get("/openapi.json").json()
    ids = {exercise.id for exercise in Catalog.load()}
    named = [value for where, value in _examples(document["paths"]) if "/parameters/" in where]
    assert named and set(named) <= ids
    assert {item["id"] for item in _example(document, "/api/exercises", "get", "200")} <= ids
    shown = _example(document, "/api/exercises/{exercise_id}", "get", "200")
    assert shown["id"] in ids and set(shown["related"]) <= ids


def test_the_examples_are_the_exercise_as_the_api_serves_it(api: InProcessClient) -> None:
    document = api.get("/openapi.json").json()
    shown = _example(document, "/api/exercises/{exercise_id}", "get", "200")
    served = api.get(f"/api/exercises/{shown['id']}").json()
    assert served["statement"].startswith(shown["statement"])
    assert {**served, "statement": None} == {**shown, "statement": None}
    assert (
        _example(document, "/api/exercises", "get", "200") == api.get("/api/exercises").json()[:2]
    )
    assert _example(document, "/api/sections", "get", "200") == api.get("/api/sections").json()
    base = f"/api/exercises/{shown['id']}/hints"
    assert api.get(f"{base}/1").json() == _example(document, HINT, "get", "200")
    past = api.get(f"{base}/{shown['hint_count'] + 1}")
    assert past.status_code == 404
    assert past.json() == _example(document, HINT, "get", "404")
    assert _body(document, SUBMISSIONS)["code"] == shown["starter_code"]
    theory = _example(document, "/api/exercises/{exercise_id}/theory", "get", "200")
    assert theory["blocks"][0] in [
        block
        for exercise in api.get("/api/exercises").json()
        for block in api.get(f"/api/exercises/{exercise['id']}/theory").json()["blocks"]
    ]


def test_the_422_example_is_what_the_judge_answers(api: InProcessClient) -> None:
    from app.openapi_examples import bad_input

    document = api.get("/openapi.json").json()
    exercise = next(iter(Catalog.load()))
    given = bad_input(exercise)
    response = api.post(
        f"/api/exercises/{exercise.id}/runs", json={"code": exercise.starter_code, "input": given}
    )
    assert response.status_code == 422
    assert response.json() == _example(document, RUNS, "post", "422")


def test_the_report_examples_are_what_grading_the_reference_gives(
    api: InProcessClient, judge: Judge
) -> None:
    document = api.get("/openapi.json").json()
    exercise = next(iter(Catalog.load()))
    run = judge.grade(exercise, exercise.solution_code, Mode.run).model_dump(mode="json")
    assert _timeless(run) == _timeless(_example(document, SUBMISSIONS, "post", "200"))
    body = _body(document, RUNS)
    custom = judge.run_custom(exercise, exercise.solution_code, body["input"])
    assert _timeless(custom.model_dump(mode="json")) == _timeless(
        _example(document, RUNS, "post", "200")
    )


def test_another_catalog_gets_its_own_examples(
    make_client: Callable[..., InProcessClient], judge: Judge, exercises_dir: Path
) -> None:
    api = make_client(judge, exercises_dir=exercises_dir)
    document = api.get("/openapi.json").json()
    ids = {exercise.id for exercise in Catalog.load(exercises_dir)}
    shown = _example(document, "/api/exercises/{exercise_id}", "get", "200")
    assert shown["id"] in ids
    assert all(
        value in ids for where, value in _examples(document["paths"]) if "/parameters/" in where
    )
