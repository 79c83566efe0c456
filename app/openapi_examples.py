"""The examples of the API reference (OpenAPI, /docs), taken from the catalog the judge serves.

Nothing of one exercise is written here: the examples are the first exercise of the loaded
catalog as the API shows it (its summary, its public page, a hint, the 422 of an input that does
not fit it, the report of a solution that returns what the reference returned), so they stay
true to whatever exercises exist, and change when a development reload changes them.
``tests/http/test_openapi_examples.py`` grades the reference and compares.
"""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI

from app.catalog import Case, Catalog, Exercise
from app.errors import no_such_hint
from app.grading import CUSTOM_CASE_NAME, BadInput, validate
from app.instructor_routes import is_instructor_path
from app.routes import exercise_public, exercise_summary, sections_of
from app.schemas import CaseResult, Group, Mode, Report, Status, TheoryPublic, Verdict

SUBMISSIONS = "/api/exercises/{exercise_id}/submissions"
RUNS = "/api/exercises/{exercise_id}/runs"


def bad_input(exercise: Exercise) -> dict[str, Any]:
    """An input that does not fit the exercise: its first example with one parameter given a
    string (where any JSON fits every parameter, with the last one left out)."""
    example = exercise.cases[0].input
    for name in exercise.parameters:
        given = {**example, name: "a string"}
        try:
            validate(exercise, given)
        except BadInput:
            return given
    return dict(list(example.items())[:-1])


def refusal(exercise: Exercise) -> str:
    """The 422 detail of ``bad_input``."""
    try:
        validate(exercise, bad_input(exercise))
    except BadInput as refused:
        return refused.detail
    raise AssertionError("bad_input fits the exercise")  # pragma: no cover


def _passed(case: Case, group: Group, name: str | None = None) -> CaseResult:
    """The row of a case on which the function returned what the reference returned."""
    value = case.expected.get("value")
    return CaseResult(
        name=name or case.name,
        status=Status.passed,
        group=group,
        hint=None if group is Group.custom else case.hint,
        input=case.input,
        expected=value,
        actual=value,
        duration_ms=0.02,
    )


def accepted_run(exercise: Exercise) -> Report:
    """A Run of a solution that returns what the reference returned on every example."""
    tests = [_passed(case, Group.example) for case in exercise.cases]
    total = len(tests)
    return Report(
        status=Status.passed,
        mode=Mode.run,
        seed=None,
        verdict=Verdict.accepted,
        passed=total,
        total=total,
        duration_ms=3.0,
        tests=tests,
    )


def accepted_custom(exercise: Exercise) -> Report:
    """A custom run of such a solution on the first example's input."""
    test = _passed(exercise.cases[0], Group.custom, CUSTOM_CASE_NAME)
    return Report(
        status=Status.passed,
        mode=Mode.custom,
        seed=None,
        verdict=Verdict.accepted,
        passed=1,
        total=1,
        duration_ms=3.0,
        tests=[test],
    )


def examples(catalog: Catalog) -> dict[str, Any] | None:
    """Each example by the place it goes in the document; None for an empty catalog."""
    exercise = next(iter(catalog), None)
    if exercise is None:
        return None
    public = exercise_public(exercise).model_dump(mode="json")
    public["statement"] = public["statement"].split("\n\n")[0]  # the rest is the exercise's
    theory = next((e.theory for e in catalog if e.theory is not None), None)
    page = (
        TheoryPublic()
        if theory is None
        else TheoryPublic(title=theory["title"], blocks=theory["blocks"][:1])
    )
    total = len(exercise.hints)
    body = {"code": exercise.starter_code}
    return {
        "exercise_id": exercise.id,
        "summaries": [exercise_summary(e).model_dump(mode="json") for e in list(catalog)[:2]],
        "sections": [section.model_dump(mode="json") for section in sections_of(catalog)],
        "exercise": public,
        "theory": page.model_dump(mode="json"),  # an exercise without one answers no blocks
        "submission": {**body, "mode": "submit"},
        "custom": {**body, "input": exercise.cases[0].input},
        "run_report": accepted_run(exercise).model_dump(mode="json"),
        "custom_report": accepted_custom(exercise).model_dump(mode="json"),
        "bad_input": refusal(exercise),
        "hint": {"index": 1, "total": total, "text": exercise.hints[0]},
        "no_such_hint": no_such_hint(total + 1, total),
    }


def _json(where: dict[str, Any], example: Any) -> None:
    where.setdefault("content", {}).setdefault("application/json", {})["example"] = example


def fill(document: dict[str, Any], catalog: Catalog) -> dict[str, Any]:
    """``document`` (FastAPI's, left as it is) with the catalog's examples in their places."""
    found = examples(catalog)
    if found is None:
        return document
    filled = copy.deepcopy(document)
    paths = filled["paths"]
    answers = {
        ("/api/exercises", "get", "200"): found["summaries"],
        ("/api/sections", "get", "200"): found["sections"],
        ("/api/exercises/{exercise_id}", "get", "200"): found["exercise"],
        ("/api/exercises/{exercise_id}/theory", "get", "200"): found["theory"],
        (SUBMISSIONS, "post", "200"): found["run_report"],
        (RUNS, "post", "200"): found["custom_report"],
        (RUNS, "post", "422"): {"detail": found["bad_input"]},
        ("/api/exercises/{exercise_id}/hints/{n}", "get", "200"): found["hint"],
        ("/api/exercises/{exercise_id}/hints/{n}", "get", "404"): {"detail": found["no_such_hint"]},
    }
    for (path, method, status), example in answers.items():
        _json(paths[path][method]["responses"][status], example)
    for path, body in ((SUBMISSIONS, found["submission"]), (RUNS, found["custom"])):
        _json(paths[path]["post"]["requestBody"], body)
    for operations in paths.values():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "exercise_id":
                    parameter["example"] = found["exercise_id"]
            if _cannot_be_invalid(operation):
                operation["responses"].pop("422", None)
    return filled


def _cannot_be_invalid(operation: dict[str, Any]) -> bool:
    """No body and only path parameters that take any text: FastAPI lists its 422 on every
    operation with a parameter, but nothing here can fail validation (an unknown id is a 404)."""
    parameters = operation.get("parameters", [])
    return "requestBody" not in operation and all(
        parameter["in"] == "path"
        and parameter.get("schema", {}).get("type") == "string"
        and set(parameter["schema"]) <= {"type", "title", "description"}
        for parameter in parameters
    )


def install(app: FastAPI) -> None:
    """Serve ``/openapi.json`` with the examples of the catalog the app has loaded (FastAPI's
    own document until it has one), built once per catalog."""
    plain = app.openapi

    def document() -> dict[str, Any]:
        if app.state.settings.instructor_token is None:
            return _without_instructor(cached_document())
        return cached_document()

    def cached_document() -> dict[str, Any]:
        catalog = getattr(app.state, "catalog", None)
        cached = getattr(app.state, "openapi_examples", None)
        if catalog is None:
            return plain()
        if cached is None or cached[0] is not catalog:
            cached = (catalog, fill(plain(), catalog))
            app.state.openapi_examples = cached
        return cached[1]

    app.openapi = document  # type: ignore[method-assign]


def _without_instructor(document: dict[str, Any]) -> dict[str, Any]:
    """The document without the instructor's paths: while the view is off they answer 404 to
    every method, as paths that do not exist (instructor_routes.HiddenWhileOff)."""
    paths = {p: ops for p, ops in document["paths"].items() if not is_instructor_path(p)}
    return {**document, "paths": paths}
