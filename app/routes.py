"""HTTP only: thin handlers that map the JSON contract onto the catalog and the judge.

Public models are built field by field from the private Exercise, so no solution code and no
expected output can leave through them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path as FsPath
from typing import Any

from fastapi import APIRouter, Path
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse, Response

from app.catalog import Catalog, Exercise
from app.deps import CatalogDep, CustomGradingDep, ExerciseDep, GradingDep, HistoryDep, JudgeDep
from app.errors import NotFound, code_over_cap, no_such_hint
from app.schemas import (
    CasePublic,
    CustomRun,
    ErrorBody,
    ExercisePublic,
    ExerciseSummary,
    Health,
    Hint,
    LimitsPublic,
    Mode,
    PoolHealth,
    Report,
    Section,
    Submission,
    TheoryPublic,
)

STATIC_DIR = FsPath(__file__).resolve().parent / "static"


def exercise_summary(exercise: Exercise) -> ExerciseSummary:
    """The list entry of one exercise."""
    return ExerciseSummary(
        id=exercise.id,
        title=exercise.title,
        difficulty=exercise.difficulty,
        summary=exercise.summary,
    )


def exercise_public(exercise: Exercise) -> ExercisePublic:
    """What the exercise page shows: case inputs, never expected values or the solution."""
    return ExercisePublic(
        id=exercise.id,
        title=exercise.title,
        difficulty=exercise.difficulty,
        summary=exercise.summary,
        section=exercise.section,
        statement=exercise.statement,
        starter_code=exercise.starter_code,
        entry_point=exercise.entry_point,
        related=list(exercise.related),
        tests=[CasePublic(name=case.name, input=case.input) for case in exercise.cases],
        submit_cases=len(exercise.extra_cases) + exercise.random_cases,
        hint_count=len(exercise.hints),
        limits=LimitsPublic(time_ms=exercise.limits.time_ms, memory_mb=exercise.limits.memory_mb),
    )


def _error(description: str, detail: str) -> dict[str, Any]:
    return {
        "model": ErrorBody,
        "description": description,
        "content": {"application/json": {"example": {"detail": detail}}},
    }


NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: _error("Unknown exercise.", "No exercise with id 'nope'.")
}
INVALID: dict[int | str, dict[str, Any]] = {
    422: _error("Malformed path or body.", "body.code: Field required")
}
# What both grading endpoints refuse before anything runs (besides a malformed body).
GRADING_REFUSALS: dict[int | str, dict[str, Any]] = {
    403: _error(
        "Sent by another site's page (Sec-Fetch-Site: cross-site, or its Origin).",
        "Submissions from another site's pages are refused.",
    ),
    **NOT_FOUND,
    413: _error("Body or code over the size cap.", code_over_cap(70000, 65536)),
    429: {
        **_error(
            "This learner (by cookie, else by address) already has JUDGE_LEARNER_IN_FLIGHT "
            "grades running or waiting; retry after Retry-After seconds.",
            "You already have 2 grades running; try again in 1 s, once one has finished.",
        ),
        "headers": {
            "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
        },
    },
}
# Every worker busy and the queue full: both grading endpoints answer so.
SATURATED: dict[int | str, dict[str, Any]] = {
    503: {
        **_error(
            "Saturated: retry after the number of seconds in Retry-After.",
            "The judge is busy; retry shortly.",
        ),
        "headers": {
            "Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}
        },
    },
}
SUBMISSION_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": Submission.model_json_schema(),
        }
    },
}
CUSTOM_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": CustomRun.model_json_schema(),
        }
    },
}

# The examples of what depends on the exercises (their ids, pages, reports, hints) are put
# in by app/openapi_examples.py, from the catalog the app serves.


def sections_of(catalog: Catalog) -> list[Section]:
    """The home page's groups: each section where its first exercise is, its exercises in
    catalog order."""
    groups: dict[str, list[str]] = {}
    for exercise in catalog:
        groups.setdefault(exercise.section, []).append(exercise.id)
    return [Section(name=name, exercises=ids) for name, ids in groups.items()]


router = APIRouter(prefix="/api", tags=["judge"])


@router.get(
    "/exercises",
    response_model=list[ExerciseSummary],
    summary="List the exercises",
    description="Every exercise of the catalog, in catalog order: id, title, difficulty and "
    "a one-line summary.",
)
async def list_exercises(catalog: CatalogDep) -> list[ExerciseSummary]:
    return [exercise_summary(exercise) for exercise in catalog]


@router.get(
    "/sections",
    response_model=list[Section],
    summary="List the sections",
    description="The home page's groups, each with its exercises' ids in their `order`; a "
    "section comes where its first exercise does in the catalog.",
)
async def list_sections(catalog: CatalogDep) -> list[Section]:
    return sections_of(catalog)


@router.get(
    "/exercises/{exercise_id}",
    response_model=ExercisePublic,
    summary="Get one exercise",
    description="The statement (Markdown), starter code, entry point, the public test cases "
    "(names and inputs only), the number of hints and the limits.",
    responses={
        **NOT_FOUND,
        **INVALID,
    },
)
async def get_exercise(exercise: ExerciseDep) -> ExercisePublic:
    return exercise_public(exercise)


@router.post(
    "/exercises/{exercise_id}/submissions",
    response_model=Report,
    summary="Grade a submission",
    description="Runs the code against every case in a confined sandbox and returns the report. "
    "Broken learner code is a normal 200 report (status `error`). The body is refused with 413 "
    "once it exceeds its size cap (checked on Content-Length and while streaming, before any "
    "JSON parsing), or when the code is over the code cap; 503 with `Retry-After` when every "
    "worker is busy and the queue is full; 403 when a browser sent the request for another "
    "site's page (`Sec-Fetch-Site: cross-site`, or an `Origin` naming another host).",
    openapi_extra={"requestBody": SUBMISSION_BODY},
    responses={
        200: {
            "description": "The report (the example: every case returned what the reference did)"
        },
        **GRADING_REFUSALS,
        **INVALID,
        **SATURATED,
    },
)
async def submit(grading: GradingDep) -> Response:
    exercise, submission, history, learner = (
        grading.exercise,
        grading.submission,
        grading.history,
        grading.learner,
    )
    mode = Mode(submission.mode)
    report = await grading.judge.grade_async(exercise, submission.code, mode, submission.seed)
    if history is not None:
        # Only enqueues: never blocks. Stored under the hash of the learner's id, never the id.
        history.record(exercise.id, report, submission.code, learner.hash if learner else None)
    # The report is already a validated model: serialise it once, in Rust, rather than have
    # FastAPI validate it again and encode it in Python (a large share of a request's CPU).
    return Response(report.model_dump_json(), media_type="application/json")


@router.post(
    "/exercises/{exercise_id}/runs",
    response_model=Report,
    summary="Run the code on an input of your own",
    description="Runs the learner's function and the reference solution on `input` (one value "
    "per parameter), each in its own confined child, and compares them by the grading rules: "
    "a report with `mode: custom` and one test (`group: custom`) whose `expected` is the "
    "reference's result. The input is checked first: 422 naming the parameter when it does not "
    "fit the exercise's parameter kinds or size caps; 422 too when the learner's code loads "
    "but the reference cannot answer the input (it raises, runs out of scripted numbers, time "
    "or memory): the input is outside what the exercise accepts.",
    openapi_extra={"requestBody": CUSTOM_BODY},
    responses={
        200: {
            "description": "The report (the example: the function returned what the reference did)"
        },
        **GRADING_REFUSALS,
        422: {
            "model": ErrorBody,
            "description": "Malformed body, an input that does not fit the parameters, or one "
            "the reference cannot answer.",
        },
        **SATURATED,
    },
)
async def run_custom(grading: CustomGradingDep) -> Response:
    body = grading.body
    report = await grading.judge.run_custom_async(grading.exercise, body.code, body.input)
    return Response(report.model_dump_json(), media_type="application/json")


@router.get(
    "/exercises/{exercise_id}/theory",
    response_model=TheoryPublic,
    summary="Get the exercise's theory page",
    description="The theory page under the statement, as blocks of Markdown, headings, tables "
    "and line plots, computed from the exercise's folder when it loads; an exercise without "
    "one answers no blocks.",
    responses={
        **NOT_FOUND,
        **INVALID,
    },
)
async def get_theory(exercise: ExerciseDep) -> TheoryPublic:
    if exercise.theory is None:
        return TheoryPublic()
    return TheoryPublic(title=exercise.theory["title"], blocks=exercise.theory["blocks"])


@router.get(
    "/exercises/{exercise_id}/hints/{n}",
    response_model=Hint,
    summary="Reveal one hint",
    description="Hint `n` of the exercise, counted from 1 to `hint_count`. Any other integer is "
    "404; a non-integer `n` is 422.",
    responses={
        404: {"model": ErrorBody, "description": "Unknown exercise, or no hint with that number."},
        422: _error(
            "`n` is not an integer.",
            "path.n: Input should be a valid integer, unable to parse string as an integer",
        ),
    },
)
async def get_hint(
    exercise: ExerciseDep,
    n: int = Path(description="Which hint, from 1 to the exercise's hint_count."),
) -> Hint:
    total = len(exercise.hints)
    if not 1 <= n <= total:
        raise NotFound(no_such_hint(n, total))
    return Hint(index=n, total=total, text=exercise.hints[n - 1])


@router.get(
    "/health",
    response_model=Health,
    summary="Service health",
    description="`ok` while serving, with each confinement layer (true when in force), the "
    "warm pool's state and the submission history's state; `degraded` while the history cannot "
    "write (grading goes on; the rows wait, counted in `backlog` and `spooled`).",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {
                        "status": "ok",
                        "sandbox": {
                            "rlimits": True,
                            "clean_env": True,
                            "uid_drop": True,
                            "no_new_privs": True,
                            "landlock": False,
                            "seccomp": True,
                            "policy": True,
                        },
                        "pool": {
                            "alive": True,
                            "workers": 2,
                            "capacity": 74,
                            "lanes": {
                                "fast": {"in_use": 1, "capacity": 2},
                                "slow": {"in_use": 3, "capacity": 8, "memory_mb_bound": 2048},
                                "queue": {"in_use": 0, "capacity": 64},
                            },
                            "in_flight": 4,
                            "completed": 1290,
                            "restarts": 0,
                            "zygote_pid": 4242,
                        },
                        "history": {
                            "database": "sqlite",
                            "state": "ok",
                            "backlog": 0,
                            "spooled": 0,
                            "lost": 0,
                            "last_error": None,
                        },
                    }
                }
            }
        }
    },
)
async def health(judge: JudgeDep, history: HistoryDep) -> Health:
    state = await asyncio.to_thread(judge.health)
    written = history.state() if history is not None else None
    return Health(
        status="ok" if written is None or written["state"] == "ok" else "degraded",
        sandbox=state["layers"],
        pool=PoolHealth.model_validate(state["pool"]),
        history=written,
    )


pages = APIRouter(include_in_schema=False)


def _page(name: str, status_code: int = 200) -> FileResponse:
    path = STATIC_DIR / name
    if not path.is_file():
        raise NotFound(f"Page {name} is not installed.")
    return FileResponse(path, status_code=status_code, media_type="text/html")


@pages.get("/")
async def home_page() -> FileResponse:
    return _page("index.html")


@pages.get("/exercises/{exercise_id}")
async def exercise_page(exercise_id: str, catalog: CatalogDep) -> FileResponse:
    # An unknown id still gets the page (its script shows a "not found" message a person can
    # read), but with the status a crawler or a link checker reads: 404.
    return _page("exercise.html", 200 if catalog.get(exercise_id) is not None else 404)


# The API reference page, with Swagger UI served from the judge's own vendored copy (no CDN).
SWAGGER_UI = max((STATIC_DIR / "vendor").glob("swagger-ui-*"), default=None)


@pages.get("/docs")
async def api_docs() -> HTMLResponse:
    if SWAGGER_UI is None:
        raise NotFound("The API reference page is not installed.")
    base = f"/static/vendor/{SWAGGER_UI.name}"
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="judge: API reference",
        swagger_js_url=f"{base}/swagger-ui-bundle.js",
        swagger_css_url=f"{base}/swagger-ui.css",
        swagger_favicon_url=f"{base}/favicon-32x32.png",
    )
