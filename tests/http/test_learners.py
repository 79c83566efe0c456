"""The learner cookie and a learner's own history over HTTP (in-process app, SQLite history).

Each learner is a cookie sent explicitly, so one client plays several browsers; the browser
test (tests/browser/test_learner_page.py) does the same with two real cookie jars.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_client import InProcessClient
from http_fakes import FakeJudge

from app.catalog import Exercise
from app.learners import COOKIE, learner_hash
from app.schemas import CaseResult, Mode, Report, Status, Verdict

ALICE = "a" * 32
BOB = "b" * 32
ISSUED = re.compile(
    rf"^{COOKIE}=([0-9a-f]{{32}}); Max-Age=31536000; Path=/; HttpOnly; SameSite=Lax(; Secure)?$"
)


class GradingJudge(FakeJudge):
    """Fails the first case of code that says "wrong"; holds code that says "slow" until
    ``release`` is set (created on the app's loop by ``hold``)."""

    def __init__(self) -> None:
        super().__init__()
        self.release: asyncio.Event | None = None
        self.waiting = 0

    async def grade_async(
        self, exercise: Exercise, code: str, mode: Any = "run", seed: int | None = None
    ) -> Report:
        if "slow" in code and self.release is not None:
            self.waiting += 1
            try:
                await self.release.wait()
            finally:
                self.waiting -= 1
        report = await super().grade_async(exercise, code, mode, seed)
        report.mode = Mode(mode)
        if "wrong" in code:
            first = report.tests[0]
            report.tests[0] = CaseResult(
                name=first.name, status=Status.failed, input=first.input, hint=2
            )
            report.passed -= 1
            report.status, report.verdict = Status.failed, Verdict.wrong_answer
        return report


def as_learner(learner_id: str) -> dict[str, str]:
    return {"Cookie": f"{COOKIE}={learner_id}"}


def grade(
    client: InProcessClient, learner_id: str | None, code: str = "ok", mode: str = "run"
) -> httpx.Response:
    headers = as_learner(learner_id) if learner_id else {}
    client._client.cookies.clear()  # only the explicit cookie speaks
    return client.post(
        "/api/exercises/add-numbers/submissions",
        json={"code": code, "mode": mode},
        headers=headers,
    )


def mine(client: InProcessClient, learner_id: str, path: str, **params: Any) -> httpx.Response:
    client._client.cookies.clear()
    client.app.state.history.flush()
    return client.get(f"/api/me/{path}", headers=as_learner(learner_id), params=params)


@pytest.fixture
def judge() -> GradingJudge:
    return GradingJudge()


@pytest.fixture
def learners(make_client: Callable[..., InProcessClient], judge: GradingJudge) -> InProcessClient:
    return make_client(judge)


def test_the_first_page_sets_the_cookie_once_with_its_attributes(
    learners: InProcessClient,
) -> None:
    first = learners.get("/")
    match = ISSUED.match(first.headers["set-cookie"])
    assert match is not None and match.group(2) is None  # plain HTTP: no Secure
    issued = match.group(1)
    again = learners.get("/exercises/add-numbers")  # the jar now sends it back
    assert "set-cookie" not in again.headers
    learners._client.cookies.clear()
    assert "set-cookie" not in learners.get("/api/exercises").headers  # the API gives none
    other = learners.get("/", headers={"Cookie": f"{COOKIE}=not-an-id"})
    fresh = ISSUED.match(other.headers["set-cookie"])
    assert fresh is not None and fresh.group(1) != issued


def test_the_cookie_is_secure_behind_a_trusted_https_proxy_only(
    make_client: Callable[..., InProcessClient],
) -> None:
    https = {"X-Forwarded-Proto": "https"}
    untrusted = make_client(FakeJudge())
    assert "Secure" not in untrusted.get("/", headers=https).headers["set-cookie"]
    trusted = make_client(FakeJudge(), trusted_proxies="127.0.0.0/8")
    assert trusted.get("/", headers=https).headers["set-cookie"].endswith("; Secure")


def test_a_grade_without_a_cookie_gives_one_and_is_listed_under_it(
    learners: InProcessClient,
) -> None:
    answer = grade(learners, None)
    assert answer.status_code == 200
    match = ISSUED.match(answer.headers["set-cookie"])
    assert match is not None
    listed = mine(learners, match.group(1), "submissions").json()
    assert [row["exercise"] for row in listed] == ["add-numbers"]


def test_each_learner_sees_only_their_own(learners: InProcessClient) -> None:
    assert grade(learners, ALICE, "ok").status_code == 200
    assert grade(learners, ALICE, "wrong", "submit").status_code == 200
    assert grade(learners, BOB, "bob's").status_code == 200

    alice = mine(learners, ALICE, "submissions").json()
    bob = mine(learners, BOB, "submissions").json()
    assert [(r["mode"], r["verdict"]) for r in alice] == [
        ("submit", "wrong_answer"),
        ("run", "accepted"),
    ]  # newest first
    assert set(alice[0]) == {
        "id",
        "exercise",
        "mode",
        "verdict",
        "status",
        "passed",
        "total",
        "created_at",
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", alice[0]["created_at"])
    assert len(bob) == 1

    own = mine(learners, ALICE, f"submissions/{alice[0]['id']}")
    assert own.status_code == 200 and own.json()["code"] == "wrong"
    # Bob's submission, a number no row has, and text: the very same 404.
    answers = [
        mine(learners, ALICE, f"submissions/{ref}")
        # Unicode digits pass str.isdigit() but not int(), and int() refuses past 4300 digits.
        for ref in (bob[0]["id"], 10**9, "abc", "-1", str(2**70), "\u00b2", "\u0661", "7" * 5000)
    ]
    assert {(a.status_code, a.text) for a in answers} == {(404, answers[0].text)}
    assert answers[0].status_code == 404
    assert mine(learners, BOB, f"submissions/{alice[0]['id']}").status_code == 404


def test_progress_counts_attempts_best_and_solved(learners: InProcessClient) -> None:
    grade(learners, ALICE, "wrong")
    grade(learners, ALICE, "ok")
    grade(learners, ALICE, "wrong", "submit")
    progress = mine(learners, ALICE, "progress").json()
    entry = progress["exercises"]["add-numbers"]
    assert entry["attempts"] == 3
    assert entry["best"] == {"passed": 6, "total": 6}
    # The fake exercises have no extra or random cases: an accepted Run is a solve.
    assert entry["solved"] is True
    assert "add-more" not in progress["exercises"]
    assert mine(learners, BOB, "progress").json() == {"exercises": {}}
    learners._client.cookies.clear()
    assert learners.get("/api/me/progress").json() == {"exercises": {}}
    assert learners.get("/api/me/submissions").json() == []


def test_filters_limits_and_bad_queries(learners: InProcessClient) -> None:
    for n in range(5):
        grade(learners, ALICE, f"ok {n}")
    learners.post(
        "/api/exercises/add-more/submissions",
        json={"code": "other"},
        headers=as_learner(ALICE),
    )
    assert len(mine(learners, ALICE, "submissions", limit=3).json()) == 3
    only = mine(learners, ALICE, "submissions", exercise="add-more").json()
    assert [row["exercise"] for row in only] == ["add-more"]
    assert mine(learners, ALICE, "submissions", exercise="nope").status_code == 404
    for bad in ("0", "201", "x"):
        answer = mine(learners, ALICE, "submissions", limit=bad)
        assert answer.status_code == 422 and "limit" in answer.json()["detail"]


def test_the_id_is_never_stored_nor_sent_back(learners: InProcessClient) -> None:
    answer = grade(learners, None)
    issued = ISSUED.match(answer.headers["set-cookie"]).group(1)  # type: ignore[union-attr]
    grade(learners, issued, "wrong", "submit")
    bodies = [answer.text, grade(learners, issued).text]
    for path in ("progress", "submissions"):
        bodies.append(mine(learners, issued, path).text)
    first = mine(learners, issued, "submissions").json()[0]["id"]
    reply = mine(learners, issued, f"submissions/{first}")
    bodies.append(reply.text + str(reply.headers))
    assert all(issued not in body for body in bodies)
    rows = learners.app.state.history.recent(10)
    assert {row["learner_hash"] for row in rows} == {learner_hash(issued)}
    assert all(issued not in str(row) for row in rows)


def test_an_old_history_file_gets_the_new_columns(
    make_client: Callable[..., InProcessClient], tmp_path: Path
) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT,"
            " exercise_id TEXT NOT NULL, created_at REAL NOT NULL, status TEXT NOT NULL,"
            " verdict TEXT NOT NULL, passed INTEGER NOT NULL, total INTEGER NOT NULL,"
            " duration_ms REAL NOT NULL, code_sha256 TEXT NOT NULL);"
            "INSERT INTO submissions (exercise_id, created_at, status, verdict, passed, total,"
            " duration_ms, code_sha256) VALUES ('add-numbers', 1.0, 'pass', 'accepted', 6, 6,"
            " 1.0, 'x');"
        )
    client = make_client(GradingJudge(), database_url=f"sqlite:///{path}")
    assert grade(client, ALICE).status_code == 200
    assert len(mine(client, ALICE, "submissions").json()) == 1
    client.app.state.history.flush()
    with sqlite3.connect(path) as db:
        indexes = {row[1] for row in db.execute("PRAGMA index_list(submissions)")}
        rows = db.execute("SELECT learner_hash, mode FROM submissions ORDER BY id").fetchall()
    assert {"submissions_by_learner", "submissions_by_exercise_learner"} <= indexes
    assert rows == [(None, None), (learner_hash(ALICE), "run")]


def test_without_a_history_the_learner_sees_nothing(
    make_client: Callable[..., InProcessClient],
) -> None:
    client = make_client(GradingJudge(), database_url=None)
    assert grade(client, ALICE).status_code == 200
    headers = as_learner(ALICE)
    assert client.get("/api/me/progress", headers=headers).json() == {"exercises": {}}
    assert client.get("/api/me/submissions", headers=headers).json() == []
    assert client.get("/api/me/submissions/1", headers=headers).status_code == 404


def test_a_database_that_never_answers_is_a_503_and_holds_nothing_else_up(
    learners: InProcessClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A frozen database server keeps the connection and never answers: each read gives up
    # after READ_TIMEOUT_S, also once READERS of them are stuck (it waits for a reader that
    # never comes free), and the health check (on the event loop's own thread pool) and grading
    # still answer.
    from app import learner_routes

    monkeypatch.setattr(learner_routes, "READ_TIMEOUT_S", 0.1)
    frozen = threading.Event()
    history = learners.app.state.history

    def never_answers(sql: str, args: Any) -> Any:
        frozen.wait(30)
        raise AssertionError("the database answered after all")

    monkeypatch.setattr(history, "read", never_answers)
    try:
        for _ in range(learner_routes.READERS + 2):
            started = time.monotonic()
            refused = learners.get("/api/me/progress", headers=as_learner(ALICE))
            assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
            assert time.monotonic() - started < 2
        assert learners.get("/api/health").status_code == 200
        assert grade(learners, BOB).status_code == 200  # grading goes on
    finally:
        frozen.set()


def test_a_burst_of_reads_past_the_readers_waits_its_turn(
    learners: InProcessClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A class's pages all reading their lists at once, each read slow: they queue, none is
    # refused for the others.
    from app import learner_routes

    history = learners.app.state.history
    real = history.read

    def slow(sql: str, args: Any) -> Any:
        time.sleep(0.05)
        return real(sql, args)

    monkeypatch.setattr(history, "read", slow)
    assert grade(learners, ALICE).status_code == 200
    history.flush()
    app = learners.app

    async def burst() -> list[int]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://judge") as client:
            answers = await asyncio.gather(
                *(
                    client.get("/api/me/submissions", headers=as_learner(ALICE))
                    for _ in range(3 * learner_routes.READERS)
                )
            )
        return [answer.status_code for answer in answers]

    # A loop of its own on a thread of its own: the browser tests' sync Playwright keeps a loop
    # running on the main thread for the rest of the session, where asyncio.run() refuses.
    with concurrent.futures.ThreadPoolExecutor(1) as runner:
        codes = runner.submit(asyncio.run, burst()).result()
    assert codes == [200] * (3 * learner_routes.READERS)
