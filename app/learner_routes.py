"""HTTP for a learner's own history: progress per exercise, submissions, one submission's code.

Everything is the caller's own, found by the hash of the id in their cookie; without a cookie
there is nothing to show (empty lists, 404). Another learner's submission answers the very
404 of an id that does not exist.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathParam

from app import history_queries
from app.catalog import Catalog, Exercise
from app.databases import DatabaseError
from app.deps import CatalogDep, HistoryDep
from app.errors import JudgeError, NotFound
from app.history import History
from app.learner_schemas import Progress, SubmissionDetail, SubmissionSummary
from app.learners import SCOPE_KEY, Learner
from app.schemas import INT64_MAX, ErrorBody

Result = TypeVar("Result")
MAX_LIMIT = 200
# A database that takes a connection and then never answers (a frozen server) would hold each
# read, and the thread it runs on, until it does: a read waits this long (for a thread, then for
# the answer), then answers 503, less than the time uvicorn gives requests to finish at SIGTERM
# (app/server.py).
READ_TIMEOUT_S = 8.0
# Reads running at once, each on a daemon thread of its own, not the event loop's shared pool
# (health and start-up use that one): stuck reads neither starve them nor keep the process
# alive at exit. More wait their turn, within READ_TIMEOUT_S (a class's burst of list reads
# after a Submit queues; it is not refused).
READERS = 8
_slots: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


class HistoryUnavailable(JudgeError):
    """The history's database did not answer a read (down, or restarting)."""

    status = 503
    detail = "The submission history cannot be read just now; retry shortly."

    def __init__(self) -> None:
        super().__init__(headers={"Retry-After": "5"})


async def get_learner(request: Request) -> Learner | None:
    """The learner whose cookie came with the request; None without one."""
    learner = request.scope.get(SCOPE_KEY)
    return learner if isinstance(learner, Learner) and learner.known else None


LearnerDep = Annotated[Learner | None, Depends(get_learner)]


def has_submit_cases(exercise: Exercise) -> bool:
    """Whether Submit grades more than Run does (else an accepted Run is a solve)."""
    submit_only = exercise.extra_cases or exercise.random_cases or exercise.distribution
    return bool(submit_only)


def run_solves(catalog: Catalog) -> frozenset[str]:
    """The exercises where an accepted Run counts as solved."""
    return frozenset(exercise.id for exercise in catalog if not has_submit_cases(exercise))


async def read_history(history: History, query: Callable[..., Result], *args: Any) -> Result:
    """Run one blocking read off the event loop; a database that refuses it, or that has not
    answered within READ_TIMEOUT_S (the wait for a free reader included), is a 503."""
    loop = asyncio.get_running_loop()
    slots = _slots.setdefault(loop, asyncio.Semaphore(READERS))
    deadline = loop.time() + READ_TIMEOUT_S
    try:
        await asyncio.wait_for(slots.acquire(), READ_TIMEOUT_S)
    except TimeoutError:
        raise HistoryUnavailable() from None
    answer: asyncio.Future[Result] = loop.create_future()

    def settle(value: Result | None, error: BaseException | None) -> None:
        slots.release()  # the thread is done: its slot is free, whoever waited or not
        if answer.done():
            return  # the request gave up waiting
        if error is not None:
            answer.set_exception(error)
        else:
            answer.set_result(value)  # type: ignore[arg-type]

    def work() -> None:
        value: Result | None = None
        error: BaseException | None = None
        try:
            value = query(history, *args)
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting request
            error = exc
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:
            pass  # the event loop is closed: the server stopped meanwhile

    threading.Thread(target=work, name="judge-history-read", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(answer), max(0.0, deadline - loop.time()))
    except (DatabaseError, TimeoutError):
        answer.cancel()  # a late answer is dropped, not logged as never retrieved
        raise HistoryUnavailable() from None


def _known_exercise(catalog: Catalog, exercise: str | None) -> str | None:
    if exercise is not None and catalog.get(exercise) is None:
        shown = exercise if len(exercise) <= 80 else exercise[:80] + "..."
        raise NotFound(f"No exercise with id {shown!r}.")
    return exercise


NO_SUCH_SUBMISSION = "No such submission among yours."


def example(value: object) -> dict[int | str, dict[str, Any]]:
    """An OpenAPI 200 example."""
    return {200: {"content": {"application/json": {"example": value}}}}


def refusal(status: int, description: str, detail: str) -> dict[int | str, dict[str, Any]]:
    """An OpenAPI error answer in the service's one error shape."""
    return {
        status: {
            "model": ErrorBody,
            "description": description,
            "content": {"application/json": {"example": {"detail": detail}}},
        }
    }


SUMMARY_EXAMPLE = {
    "id": 1041,
    "exercise": "softmax",
    "mode": "submit",
    "verdict": "wrong_answer",
    "status": "fail",
    "passed": 21,
    "total": 24,
    "created_at": "2026-12-03T10:15:02.123Z",
}
UNAVAILABLE = refusal(503, "The history's database did not answer.", HistoryUnavailable.detail)
BAD_QUERY = refusal(
    422, "A malformed query parameter.", "query.limit: Input should be less than or equal to 200"
)

router = APIRouter(prefix="/api/me", tags=["learner"])


@router.get(
    "/progress",
    response_model=Progress,
    summary="Your progress",
    description="For each exercise you graded: attempts (Runs and Submits), whether you solved "
    "it, and your best result. Yours only: the `judge_learner` cookie says who you are.",
    responses={
        **example(
            {
                "exercises": {
                    "softmax": {
                        "attempts": 4,
                        "solved": True,
                        "best": {"passed": 24, "total": 24},
                    }
                }
            }
        ),
        **UNAVAILABLE,
    },
)
async def my_progress(learner: LearnerDep, history: HistoryDep, catalog: CatalogDep) -> Progress:
    if learner is None or history is None:
        return Progress(exercises={})
    found = await read_history(history, history_queries.progress, learner.hash, run_solves(catalog))
    known = {exercise.id for exercise in catalog}
    return Progress.model_validate(
        {"exercises": {key: value for key, value in found.items() if key in known}}
    )


@router.get(
    "/submissions",
    response_model=list[SubmissionSummary],
    summary="Your submissions",
    description="Your graded Runs and Submits, newest first, without their code; of one "
    "exercise with `exercise`. 404 for an unknown exercise.",
    responses={
        **example([SUMMARY_EXAMPLE]),
        **refusal(404, "Unknown exercise.", "No exercise with id 'nope'."),
        **BAD_QUERY,
        **UNAVAILABLE,
    },
)
async def my_submissions(
    learner: LearnerDep,
    history: HistoryDep,
    catalog: CatalogDep,
    exercise: Annotated[str | None, Query(description="only this exercise's")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT, description="at most this many")] = 20,
) -> list[SubmissionSummary]:
    _known_exercise(catalog, exercise)
    if learner is None or history is None:
        return []
    rows = await read_history(history, history_queries.submissions, learner.hash, exercise, limit)
    return [SubmissionSummary.model_validate(row) for row in rows]


@router.get(
    "/submissions/{submission_id}",
    response_model=SubmissionDetail,
    summary="One of your submissions, with its code",
    description="404 for a submission that is not yours, exactly as for one that does not exist.",
    responses={
        **example({**SUMMARY_EXAMPLE, "code": "import numpy as np\n\ndef softmax(x):\n    ...\n"}),
        **refusal(404, "Not yours, or no such submission.", NO_SUCH_SUBMISSION),
        **BAD_QUERY,
        **UNAVAILABLE,
    },
)
async def my_submission(
    learner: LearnerDep,
    history: HistoryDep,
    submission_id: Annotated[str, PathParam(description="the `id` of a listed submission")],
) -> SubmissionDetail:
    # Any text is taken and answered alike, so a malformed id is no different from another's.
    # ASCII digits only: str.isdigit() also takes "²", which int() refuses, and a row id has
    # at most 19 digits, so int() is never asked for the thousands it refuses too.
    digits = submission_id.isascii() and submission_id.isdigit() and len(submission_id) <= 19
    if learner is None or history is None or not digits or int(submission_id) > INT64_MAX:
        raise NotFound(NO_SUCH_SUBMISSION)
    number = int(submission_id)
    row = await read_history(history, history_queries.submission, learner.hash, number)
    if row is None:
        raise NotFound(NO_SUCH_SUBMISSION)
    return SubmissionDetail.model_validate(row)
