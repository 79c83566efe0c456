"""HTTP for the instructor: per-exercise statistics, the most-failed cases, a CSV export.

Off unless ``JUDGE_INSTRUCTOR_TOKEN`` is set: then every path here (and the /instructor page)
answers the 404 of a path that does not exist. With it set, the API needs ``Authorization:
Bearer <token>``, compared in constant time. No answer names a learner: counts, and in the
export a pseudonym made from the stored hash.
"""

from __future__ import annotations

import csv
import hmac
import io
import logging
import posixpath
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, JSONResponse, StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from app import history_queries
from app.catalog import Catalog, Exercise
from app.config import Settings
from app.databases import DatabaseError, one_line
from app.deps import CatalogDep, ExerciseDep, HistoryDep, SettingsDep
from app.errors import JudgeError, NotFound
from app.history import History
from app.learner_routes import UNAVAILABLE, example, read_history, refusal, run_solves
from app.learner_schemas import ExerciseReport, ExerciseStatistics, HintRef
from app.routes import STATIC_DIR

# A spreadsheet runs a cell that starts with one of these as a formula; a learner's code is
# theirs to write, so such a cell is prefixed with ' (OWASP's advice for CSV injection).
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")
UNSET_DETAIL = "Not Found"  # what Starlette answers for a path that does not exist


class Unauthorized(JudgeError):
    status = 401
    detail = "This needs the instructor's token: send Authorization: Bearer <token>."

    def __init__(self) -> None:
        super().__init__(headers={"WWW-Authenticate": 'Bearer realm="instructor"'})


async def require_instructor(request: Request, settings: SettingsDep) -> None:
    """404 while the instructor's view is off; 401 unless the right bearer token came."""
    token = settings.instructor_token
    if token is None:
        raise NotFound(UNSET_DETAIL)
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    # compare_digest on bytes: its time depends on the lengths only, not on where they differ.
    expected = token.encode()
    if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), expected):
        raise Unauthorized()


InstructorDep = Depends(require_instructor)
AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    **refusal(401, "Missing or wrong bearer token.", Unauthorized.detail),
    **refusal(404, "The instructor's view is off (JUDGE_INSTRUCTOR_TOKEN unset).", UNSET_DETAIL),
    **UNAVAILABLE,
}
STATISTICS_EXAMPLE = {
    "id": "softmax",
    "title": "Softmax",
    "learners": 31,
    "solved": 22,
    "solve_rate": 0.7097,
    "median_attempts_to_solve": 4,
    "submissions": 243,
}
REPORT_EXAMPLE = {
    **STATISTICS_EXAMPLE,
    "verdicts": {"wrong_answer": 150, "accepted": 61, "runtime_error": 32},
    "cases": [
        {
            "name": "large values",
            "group": "example",
            "failed_by": 7,
            "hint": {"index": 2, "text": "What happens to exp(x) when x is 1000?"},
        },
        {"name": "random cases", "group": "random", "failed_by": 3, "hint": None},
    ],
    "submissions_per_day": [
        {"day": "2026-12-02", "submissions": 180},
        {"day": "2026-12-03", "submissions": 63},
    ],
}

log = logging.getLogger("judge.storage")
router = APIRouter(
    prefix="/api/instructor",
    tags=["instructor"],
    dependencies=[InstructorDep],
    responses=AUTH_RESPONSES,
)


def _hint(exercise: Exercise, index: object) -> HintRef | None:
    if isinstance(index, int) and 1 <= index <= len(exercise.hints):
        return HintRef(index=index, text=exercise.hints[index - 1])
    return None


async def _statistics(
    history: History | None, catalog: Catalog, exercise: str | None = None
) -> dict[str, dict[str, Any]]:
    if history is None:
        return {}
    return await read_history(
        history, history_queries.exercise_statistics, run_solves(catalog), exercise
    )


@router.get(
    "/exercises",
    response_model=list[ExerciseStatistics],
    summary="Every exercise's statistics",
    description="Per exercise, in catalog order: learners (counted by their id's hash), how "
    "many solved it, the solve rate, the median number of grades to the first solve, and the "
    "number of submissions.",
    responses=example([STATISTICS_EXAMPLE]),
)
async def list_statistics(history: HistoryDep, catalog: CatalogDep) -> list[ExerciseStatistics]:
    found = await _statistics(history, catalog)
    return [
        ExerciseStatistics(
            id=exercise.id,
            title=exercise.title,
            **found.get(exercise.id, history_queries.empty_statistics()),
        )
        for exercise in catalog
    ]


@router.get(
    "/exercises/{exercise_id}",
    response_model=ExerciseReport,
    summary="One exercise's statistics, verdicts, most-failed cases and daily submissions",
    description="The list's entry plus `verdicts` (submissions per verdict), `cases` (each "
    "case the learners' latest attempts failed, by how many learners, most first, with the "
    "hint tied to it) and `submissions_per_day` (UTC).",
    responses={
        **example(REPORT_EXAMPLE),
        **refusal(422, "A malformed path.", "path.exercise_id: Field required"),
    },
)
async def exercise_report(
    exercise: ExerciseDep, history: HistoryDep, catalog: CatalogDep
) -> ExerciseReport:
    found = (await _statistics(history, catalog, exercise.id)).get(exercise.id)
    verdicts: dict[str, int] = {}
    cases: list[dict[str, Any]] = []
    days: list[dict[str, Any]] = []
    if history is not None:
        verdicts = await read_history(history, history_queries.verdicts, exercise.id)
        cases = await read_history(history, history_queries.failed_cases, exercise.id)
        days = await read_history(history, history_queries.per_day, exercise.id)
    return ExerciseReport.model_validate(
        {
            "id": exercise.id,
            "title": exercise.title,
            **(found or history_queries.empty_statistics()),
            "verdicts": verdicts,
            "cases": [{**case, "hint": _hint(exercise, case["hint"])} for case in cases],
            "submissions_per_day": days,
        }
    )


def _csv_cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_LEADS):
        return "'" + value
    return value


def _csv_lines(history: History | None, exercise: str | None, include_code: bool) -> Iterator[str]:
    """The export, a few hundred rows per chunk (Starlette iterates it in a thread)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([*history_queries.CSV_HEADER, *(["code"] if include_code else [])])
    if history is not None:
        for count, row in enumerate(
            history_queries.export_rows(history, exercise, include_code), start=1
        ):
            writer.writerow([_csv_cell(value) for value in row])
            if count % 500 == 0:
                yield buffer.getvalue()
                buffer.seek(0)
                buffer.truncate()
    yield buffer.getvalue()


@router.get(
    "/submissions.csv",
    summary="Every submission as CSV",
    description="A header, then one row per submission in the order stored: created_at, "
    "exercise, learner (a short pseudonym), mode, verdict, passed, total, duration_ms, and "
    "the code with `include_code=1`. A code cell that a spreadsheet would run as a formula is "
    "prefixed with `'`.",
    response_class=StreamingResponse,
    responses={
        200: {
            "content": {
                "text/csv": {
                    "example": "created_at,exercise,learner,mode,verdict,passed,total,"
                    "duration_ms\r\n2026-12-03T10:15:02.123Z,softmax,L-3f9a0c21be,submit,"
                    "accepted,24,24,3.1\r\n"
                }
            }
        },
        **refusal(404, "Unknown exercise (or the view is off).", "No exercise with id 'nope'."),
        **refusal(
            422,
            "A malformed query parameter.",
            "query.include_code: Input should be a valid boolean",
        ),
    },
)
async def export_csv(
    history: HistoryDep,
    catalog: CatalogDep,
    exercise: Annotated[str | None, Query(description="only this exercise's")] = None,
    include_code: Annotated[bool, Query(description="add a code column")] = False,
) -> StreamingResponse:
    if exercise is not None and catalog.get(exercise) is None:
        raise NotFound(f"No exercise with id {exercise[:80]!r}.")
    # The first page is read here, so a database that is down is a 503, not a cut download.
    lines = _csv_lines(history, exercise, include_code)
    first = await read_history(history, lambda _h: next(lines)) if history is not None else ""
    name = f"submissions-{exercise}.csv" if exercise else "submissions.csv"

    def body() -> Iterator[str]:
        yield first
        try:
            yield from lines
        except DatabaseError as exc:
            # The status is sent: the download can only end short. Said once in the log, not
            # as an unhandled error's traceback; the client sees the cut (no last chunk).
            log.error("instructor export: the database failed mid-download (%s)", one_line(exc))
            raise _CutShort from None

    return _Export(
        body(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


class _CutShort(Exception):
    """The export's database failed after its first page was sent."""


class _Export(StreamingResponse):
    """The CSV stream: cut short by the database, it ends without its last chunk (the client
    sees an incomplete download) and the judge logs one line, not an unhandled traceback."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        except _CutShort:
            return
        except BaseExceptionGroup as group:
            rest = group.subgroup(lambda e: not isinstance(e, _CutShort))
            if rest is not None:
                raise rest from None


page = APIRouter(include_in_schema=False)


@page.get("/instructor")
async def instructor_page(settings: SettingsDep) -> FileResponse:
    """The page itself holds no data (its script asks for the token); off means 404."""
    if settings.instructor_token is None:
        raise NotFound(UNSET_DETAIL)
    return FileResponse(STATIC_DIR / "instructor.html", media_type="text/html")


# The page's own files: while the view is off, they are as absent as the page.
PAGE_FILES = frozenset({"/static/instructor.html", "/static/instructor.js"})


def is_instructor_path(path: str) -> bool:
    """Whether a request path belongs to the instructor's view (API, page or its files),
    after the normalisation the static files get (``/static/./instructor.html``)."""
    path = posixpath.normpath("/" + path.lstrip("/"))
    return (
        path in ("/instructor", "/api/instructor")
        or path.startswith(("/instructor/", "/api/instructor/"))
        or path in PAGE_FILES
    )


class HiddenWhileOff:
    """While ``JUDGE_INSTRUCTOR_TOKEN`` is unset, every instructor path answers the 404 of a
    path that does not exist, to every method: the router alone would answer 405 to a POST,
    which tells that the path is there, and the static files would serve the page itself."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and self.settings.instructor_token is None
            and is_instructor_path(scope["path"])
        ):
            response = JSONResponse({"detail": UNSET_DETAIL}, status_code=404)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
