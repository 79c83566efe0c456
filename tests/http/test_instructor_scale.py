"""The instructor's queries on a class's history of 100,000 submissions, on PostgreSQL (a
throwaway cluster) and on SQLite: the answers match a count made here from the same rows, and
the time each query takes is printed (not asserted; run with -s to see it)."""

from __future__ import annotations

import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from asgi_client import InProcessClient
from test_learners import GradingJudge

from app.databases import COLUMNS, open_database
from app.learners import learner_hash

ROWS = 100_000
LEARNERS = 1_000
TOKEN = "scale-test-token-0123456789"
BEARER = {"Authorization": f"Bearer {TOKEN}"}
EXERCISES = ("add-numbers", "add-more")
DAY = 86_400.0


def class_history(seed: int = 7) -> list[dict[str, Any]]:
    """ROWS submissions: each learner tries each exercise, fails some cases, perhaps solves."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    start = 1_780_000_000.0
    per_pair = ROWS // (LEARNERS * len(EXERCISES))
    for learner in range(LEARNERS):
        who = learner_hash(f"{learner:032x}")
        for exercise in EXERCISES:
            solve_at = rng.randrange(1, per_pair + 8)  # past per_pair: never solved
            for attempt in range(1, per_pair + 1):
                accepted = attempt >= solve_at
                mode = "submit" if accepted or attempt % 3 == 0 else "run"
                failed = [] if accepted else [f"case {rng.randrange(6)}"]
                rows.append(
                    {
                        "exercise_id": exercise,
                        "created_at": start + rng.random() * 20 * DAY + attempt * 60,
                        "status": "pass" if accepted else "fail",
                        "verdict": "accepted" if accepted else "wrong_answer",
                        "passed": 6 - len(failed),
                        "total": 6,
                        "duration_ms": 2.5,
                        "code_sha256": "0" * 64,
                        "row_key": f"{len(rows):032x}",
                        "learner_hash": who,
                        "mode": mode,
                        "code": f"def add(a, b):\n    return a + b  # {len(rows)}\n",
                        "failed": (
                            "["
                            + ",".join(
                                f'{{"name":"{n}","group":"example","hint":1}}' for n in failed
                            )
                            + "]"
                        ),
                    }
                )
    # created_at orders each learner's attempts: attempt n comes after attempt n - 1.
    by_pair: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_pair[(row["exercise_id"], row["learner_hash"])].append(row)
    for attempts in by_pair.values():
        times = sorted(row["created_at"] for row in attempts)
        for row, moment in zip(attempts, times, strict=True):
            row["created_at"] = moment
    return rows


def expected_statistics(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        pairs[(row["exercise_id"], row["learner_hash"])].append(row)
    found: dict[str, dict[str, Any]] = {}
    for exercise in EXERCISES:
        mine = {
            k: sorted(v, key=lambda r: r["created_at"])
            for k, v in pairs.items()
            if k[0] == exercise
        }
        to_solve = []
        latest_failed: Counter[str] = Counter()
        for attempts in mine.values():
            solves = [
                i
                for i, r in enumerate(attempts, 1)
                if r["verdict"] == "accepted" and r["mode"] == "submit"
            ]
            if solves:
                to_solve.append(solves[0])
            if attempts[-1]["verdict"] != "accepted":
                latest_failed.update({r for r in [attempts[-1]["failed"].split('"')[3]]})
        found[exercise] = {
            "learners": len(mine),
            "solved": len(to_solve),
            "median_attempts_to_solve": statistics.median(to_solve),
            "submissions": sum(len(v) for v in mine.values()),
            "failed_by": dict(latest_failed),
        }
    return found


def timed(client: InProcessClient, path: str, **params: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    answer = client.get(path, headers=BEARER, params=params)
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code == 200, answer.text
    return answer, elapsed


def check_and_time(client: InProcessClient, rows: list[dict[str, Any]], label: str) -> None:
    expected = expected_statistics(rows)
    times: dict[str, float] = {}
    listed, times["exercises"] = timed(client, "/api/instructor/exercises")
    for entry in listed.json():
        want = expected[entry["id"]]
        assert entry["learners"] == want["learners"] == LEARNERS
        assert entry["solved"] == want["solved"]
        assert entry["submissions"] == want["submissions"]
        assert entry["median_attempts_to_solve"] == want["median_attempts_to_solve"]
    detail, times["exercise detail"] = timed(client, f"/api/instructor/exercises/{EXERCISES[0]}")
    cases = {case["name"]: case["failed_by"] for case in detail.json()["cases"]}
    assert cases == expected[EXERCISES[0]]["failed_by"]
    assert sum(detail.json()["verdicts"].values()) == expected[EXERCISES[0]]["submissions"]
    assert len(detail.json()["submissions_per_day"]) >= 20
    export, times["CSV, all rows"] = timed(client, "/api/instructor/submissions.csv")
    assert export.text.count("\r\n") == 1 + len(rows)
    _, times["CSV with code, one exercise"] = timed(
        client, "/api/instructor/submissions.csv", exercise=EXERCISES[1], include_code="1"
    )
    who = f"judge_learner={7:032x}"
    for name, path in (
        ("my progress", "/api/me/progress"),
        ("my submissions", "/api/me/submissions"),
    ):
        started = time.perf_counter()
        assert client.get(path, headers={"Cookie": who}).status_code == 200
        times[name] = (time.perf_counter() - started) * 1000
    again = {
        name: timed(client, path)[1]
        for name, path in (
            ("exercises", "/api/instructor/exercises"),
            ("exercise detail", f"/api/instructor/exercises/{EXERCISES[0]}"),
        )
    }
    print(f"\n{label}, {len(rows)} submissions, {LEARNERS} learners (ms, over HTTP in-process;")
    print("  a second request where given):")
    for name, ms in times.items():
        second = f"{again[name]:8.1f}" if name in again else ""
        print(f"  {name:30s} {ms:8.1f} {second}")


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return class_history()


def test_the_instructor_queries_on_postgresql(
    make_client: Callable[..., InProcessClient], postgres_url: str, rows: list[dict[str, Any]]
) -> None:
    open_database(postgres_url).close()  # the table, its columns and indexes
    started = time.perf_counter()
    with psycopg.connect(postgres_url) as conn, conn.cursor() as cursor:
        with cursor.copy(f"COPY submissions ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([row[name] for name in COLUMNS])
        cursor.execute("ANALYZE submissions")
    print(f"\nseeded {len(rows)} rows in {time.perf_counter() - started:.1f} s")
    client = make_client(GradingJudge(), database_url=postgres_url, instructor_token=TOKEN)
    check_and_time(client, rows, "PostgreSQL")


def test_the_instructor_queries_on_sqlite(
    make_client: Callable[..., InProcessClient], tmp_path: Path, rows: list[dict[str, Any]]
) -> None:
    url = f"sqlite:///{tmp_path / 'class.sqlite3'}"
    database = open_database(url)
    database.insert([tuple(row[name] for name in COLUMNS) for row in rows])
    database.close()
    client = make_client(GradingJudge(), database_url=url, instructor_token=TOKEN)
    check_and_time(client, rows, "SQLite")
