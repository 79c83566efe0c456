"""The instructor's view over HTTP (in-process app, SQLite history): off without a token,
401 without the right one, and statistics that match the grades that made them."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import pytest
from asgi_client import InProcessClient
from test_learners import ALICE, BOB, GradingJudge, grade

from app.config import ConfigError, Settings
from app.learners import learner_hash, pseudonym

TOKEN = "instructor-token-" + "x" * 16
BEARER = {"Authorization": f"Bearer {TOKEN}"}
CAROL = "c" * 32
PATHS = (
    "/api/instructor/exercises",
    "/api/instructor/exercises/add-numbers",
    "/api/instructor/submissions.csv",
)


@pytest.fixture
def instructor(make_client: Callable[..., InProcessClient]) -> InProcessClient:
    return make_client(GradingJudge(), instructor_token=TOKEN)


def test_everything_is_404_without_a_token(make_client: Callable[..., InProcessClient]) -> None:
    client = make_client(GradingJudge())
    nowhere = client.post("/no/such/path")
    page_files = ("/static/instructor.html", "/static/./instructor.js", "//static/instructor.html")
    for path in (*PATHS, "/instructor", "/api/instructor/anything", *page_files):
        for method in ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"):
            answer = client.request(method, path, headers=BEARER)
            # As for a path that does not exist: not a 405, which would tell that it does.
            assert answer.status_code == 404, (method, path)
            if method != "HEAD":
                assert answer.json() == nowhere.json() == {"detail": "Not Found"}


def test_the_page_files_are_served_once_a_token_is_set(instructor: InProcessClient) -> None:
    for path in ("/static/instructor.html", "/static/instructor.js"):
        assert instructor.get(path).status_code == 200, path
    assert instructor.post("/api/instructor/exercises", headers=BEARER).status_code == 405


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
    ],
)
def test_a_missing_or_wrong_token_is_401(instructor: InProcessClient, headers: dict) -> None:
    for path in PATHS:
        answer = instructor.get(path, headers=headers)
        assert answer.status_code == 401, path
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert TOKEN not in answer.text


def test_the_page_is_served_once_a_token_is_set(instructor: InProcessClient) -> None:
    page = instructor.get("/instructor")  # no data in it: the script asks for the token
    assert page.status_code == 200 and "instructor.js" in page.text
    assert "unsafe-inline" not in page.headers["content-security-policy"].split("style-src")[0]


def seed(client: InProcessClient) -> None:
    # Alice: wrong, wrong, accepted (3 grades to solve), then wrong again (her latest).
    for code in ("wrong", "wrong", "ok", "wrong"):
        grade(client, ALICE, code)
    grade(client, BOB, "ok")  # Bob: solved at once
    grade(client, CAROL, "wrong", "submit")  # Carol: not solved, latest fails case 0
    grade(client, CAROL, "wrong")
    client.post(
        "/api/exercises/add-more/submissions",
        json={"code": "ok"},
        headers={"Cookie": f"judge_learner={ALICE}"},
    )
    client.app.state.history.flush()


def test_statistics_match_the_grades(instructor: InProcessClient) -> None:
    seed(instructor)
    listed = instructor.get("/api/instructor/exercises", headers=BEARER).json()
    assert [row["id"] for row in listed] == [e.id for e in instructor.app.state.catalog]
    numbers = next(row for row in listed if row["id"] == "add-numbers")
    more = next(row for row in listed if row["id"] == "add-more")

    assert numbers == {
        "id": "add-numbers",
        "title": "Title of add-numbers",
        "learners": 3,
        "solved": 2,
        "solve_rate": round(2 / 3, 4),
        "median_attempts_to_solve": 2,  # Alice 3, Bob 1
        "submissions": 7,
    }
    assert more["learners"] == 1 and more["submissions"] == 1

    detail = instructor.get("/api/instructor/exercises/add-numbers", headers=BEARER).json()
    assert detail["verdicts"] == {"wrong_answer": 5, "accepted": 2}
    assert detail["cases"] == [
        {
            "name": "case 0",
            "group": "example",
            "failed_by": 2,  # Alice's and Carol's latest; Bob's passed
            "hint": {"index": 2, "text": "Hint number 2 for add-numbers."},
        }
    ]
    days = detail["submissions_per_day"]
    assert len(days) == 1 and days[0]["submissions"] == 7
    unknown = instructor.get("/api/instructor/exercises/nope", headers=BEARER)
    assert unknown.status_code == 404


def test_the_export_names_learners_by_pseudonym_only(instructor: InProcessClient) -> None:
    seed(instructor)
    grade(instructor, BOB, "=HYPERLINK(1)")  # a formula, if a spreadsheet took it as one
    instructor.app.state.history.flush()
    plain = instructor.get("/api/instructor/submissions.csv", headers=BEARER)
    assert plain.status_code == 200
    assert plain.headers["content-type"].startswith("text/csv")
    assert "attachment" in plain.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(plain.text)))
    assert rows[0] == [
        "created_at",
        "exercise",
        "learner",
        "mode",
        "verdict",
        "passed",
        "total",
        "duration_ms",
    ]
    assert len(rows) == 1 + 9
    assert {row[2] for row in rows[1:]} == {pseudonym(learner_hash(x)) for x in (ALICE, BOB, CAROL)}
    for secret in (ALICE, BOB, CAROL, learner_hash(ALICE), learner_hash(BOB)):
        assert secret not in plain.text

    coded = instructor.get(
        "/api/instructor/submissions.csv",
        params={"exercise": "add-numbers", "include_code": "1"},
        headers=BEARER,
    )
    rows = list(csv.reader(io.StringIO(coded.text)))
    assert rows[0][-1] == "code" and len(rows) == 1 + 8
    assert {row[1] for row in rows[1:]} == {"add-numbers"}
    assert rows[-1][-1] == "'=HYPERLINK(1)"
    assert rows[1][-1] == "wrong"
    bad = instructor.get(
        "/api/instructor/submissions.csv", params={"exercise": "nope"}, headers=BEARER
    )
    assert bad.status_code == 404


def test_the_export_streams_past_one_page(instructor: InProcessClient) -> None:
    history = instructor.app.state.history
    for n in range(2_345):
        grade(instructor, ALICE if n % 2 else BOB, f"ok {n}")
    history.flush()
    rows = list(csv.reader(io.StringIO(instructor.get(PATHS[2], headers=BEARER).text)))
    assert len(rows) == 1 + 2_345


@pytest.mark.parametrize("token", ["short", "has a space in it ok", "tab\there-0123456789"])
def test_a_weak_token_stops_the_start_without_being_printed(token: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Settings.from_env({"JUDGE_INSTRUCTOR_TOKEN": token})
    assert "JUDGE_INSTRUCTOR_TOKEN" in str(caught.value) and token not in str(caught.value)


def test_a_bad_trusted_proxy_stops_the_start() -> None:
    with pytest.raises(ConfigError, match="JUDGE_TRUSTED_PROXIES.*'10.0.0.300'"):
        Settings.from_env({"JUDGE_TRUSTED_PROXIES": "127.0.0.1, 10.0.0.300"})
    settings = Settings.from_env(
        {"JUDGE_TRUSTED_PROXIES": "10.0.0.0/8,::1", "JUDGE_LEARNER_IN_FLIGHT": "3"}
    )
    assert [str(n) for n in settings.trusted_networks] == ["10.0.0.0/8", "::1/128"]
    assert settings.learner_in_flight == 3
