"""Request dependencies: what the routes need from ``app.state``, and the capped body reader.

They are ``async`` although they never await: FastAPI runs a plain ``def`` dependency in a
worker thread, a hop that cost more than everything else in a request. The two grading routes
take one dependency each (``GradingDep``, ``CustomGradingDep``) that reads ``app.state`` itself:
FastAPI's own work per dependency, paid on every request, was a large part of a grade's CPU in
the web process.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, TypeVar
from urllib.parse import urlsplit

from fastapi import Depends, Path, Request
from pydantic import ValidationError

from app.catalog import Catalog, Exercise
from app.config import Settings
from app.errors import (
    Forbidden,
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
    code_bytes,
    code_over_cap,
    describe_validation,
)
from app.grading import Judge
from app.history import History
from app.learners import SCOPE_KEY, Learner
from app.schemas import CustomRun, Submission


async def get_settings(request: Request) -> Settings:
    return request.app.state.settings


async def get_catalog(request: Request) -> Catalog:
    return request.app.state.catalog


async def get_judge(request: Request) -> Judge:
    return request.app.state.judge


async def get_history(request: Request) -> History | None:
    return request.app.state.history


SettingsDep = Annotated[Settings, Depends(get_settings)]
CatalogDep = Annotated[Catalog, Depends(get_catalog)]
JudgeDep = Annotated[Judge, Depends(get_judge)]
HistoryDep = Annotated[History | None, Depends(get_history)]


ExerciseId = Annotated[
    str,
    Path(description="The exercise's slug, as `GET /api/exercises` lists it."),
]


def exercise_named(catalog: Catalog, exercise_id: str) -> Exercise:
    """The exercise named in the path, or 404."""
    exercise = catalog.get(exercise_id)
    if exercise is None:
        shown = exercise_id if len(exercise_id) <= 80 else exercise_id[:80] + "..."
        raise NotFound(f"No exercise with id {shown!r}.")
    return exercise


async def get_exercise(exercise_id: ExerciseId, catalog: CatalogDep) -> Exercise:
    """The exercise named in the path, or 404."""
    return exercise_named(catalog, exercise_id)


ExerciseDep = Annotated[Exercise, Depends(get_exercise)]


async def read_capped_body(request: Request, cap: int) -> bytes:
    """The request body, refused with 413 once it exceeds ``cap`` bytes.

    A declared Content-Length over the cap is refused before a byte is read; a body without one
    (chunked) is counted while it streams in, so at most ``cap`` bytes are ever held.
    """
    declared = request.headers.get("content-length")
    # ASCII digits, and a length before int(): a header is latin-1, where "\xb2" is a digit to
    # str.isdigit() but not to int(), and int() refuses a number of thousands of digits.
    digits = declared is not None and declared.isascii() and declared.isdigit()
    if declared is not None and digits and (len(declared) > 19 or int(declared) > cap):
        raise PayloadTooLarge(f"Request body of {declared} bytes exceeds the {cap}-byte limit.")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise PayloadTooLarge(f"Request body exceeds the {cap}-byte limit.")
    return bytes(body)


BodyModel = TypeVar("BodyModel", Submission, CustomRun)


def _hostname(url: str) -> str | None:
    """The host of a URL or of a ``host[:port]``, lower-cased, without port or brackets."""
    try:
        return urlsplit(url if "//" in url else "//" + url).hostname
    except ValueError:  # e.g. an unclosed IPv6 bracket
        return None


def from_another_site(request: Request) -> bool:
    """Whether a browser sent this request for a page of another site.

    Any web page a learner visits could otherwise make their browser post code to a judge on
    localhost (a form or a no-cors fetch needs no preflight). Browsers label such requests
    ``Sec-Fetch-Site: cross-site``, and that label is believed whenever it is there: a proxy
    that passes the judge another Host than the browser's (nginx's default) changes nothing.
    A browser too old to send it still sends ``Origin`` with every POST: refused when it names
    another host than the one the request was sent to (``null``, from a sandboxed frame or a
    file, names none). Ports are not compared (a proxy may pass the host without its port, as
    nginx's ``$host`` does), as the browsers' "site" does not. Other clients (curl, scripts)
    send neither header and are unaffected.
    """
    headers = request.headers
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site == "cross-site"
    origin = headers.get("origin")
    if origin is None:
        return False
    if origin.strip().lower() == "null":
        return True
    own = _hostname(headers.get("host", ""))
    return own is None or _hostname(origin) != own


async def _read_code_body(
    request: Request, settings: Settings, exercise: Exercise, model: type[BodyModel]
) -> BodyModel:
    """A body holding learner code: size-capped first, then parsed and validated (422 if
    malformed), then the code's own cap."""
    if from_another_site(request):
        raise Forbidden("Submissions from another site's pages are refused.")
    body = await read_capped_body(request, settings.max_body_bytes)
    try:
        parsed = model.model_validate_json(body)
    except ValidationError as exc:
        raise InvalidRequest(describe_validation(exc.errors(), prefix="body")) from None
    cap = min(settings.max_code_bytes, exercise.limits.code_bytes)
    size = code_bytes(parsed.code)
    if size > cap:
        raise PayloadTooLarge(code_over_cap(size, cap))
    return parsed


def grading_learner(request: Request) -> Learner | None:
    """The learner a grade is recorded for: the cookie's, or the one just made for this grade
    (its cookie goes back with the report), so a first grade is not left out of their list."""
    learner = request.scope.get(SCOPE_KEY)
    return learner if isinstance(learner, Learner) else None


@dataclass(frozen=True)
class Grading:
    """What the submissions route needs; the exercise (404) is found before the body is read
    (403, 413, 422), as with the separate dependencies."""

    exercise: Exercise
    submission: Submission
    judge: Judge
    history: History | None
    learner: Learner | None


@dataclass(frozen=True)
class CustomGrading:
    """What the custom-input route needs, found in the same order."""

    exercise: Exercise
    body: CustomRun
    judge: Judge


async def get_grading(exercise_id: ExerciseId, request: Request) -> Grading:
    state = request.app.state
    exercise = exercise_named(state.catalog, exercise_id)
    submission = await _read_code_body(request, state.settings, exercise, Submission)
    return Grading(exercise, submission, state.judge, state.history, grading_learner(request))


async def get_custom_grading(exercise_id: ExerciseId, request: Request) -> CustomGrading:
    state = request.app.state
    exercise = exercise_named(state.catalog, exercise_id)
    body = await _read_code_body(request, state.settings, exercise, CustomRun)
    return CustomGrading(exercise, body, state.judge)


GradingDep = Annotated[Grading, Depends(get_grading)]
CustomGradingDep = Annotated[CustomGrading, Depends(get_custom_grading)]
