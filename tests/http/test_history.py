"""Submission history: rows written off the request path, failures logged, never raised."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from app.databases import COLUMNS, describe, sqlite_path
from app.history import History, row_values
from app.schemas import Report, Status, Verdict

REPORT = Report(
    status=Status.failed, verdict=Verdict.wrong_answer, passed=4, total=6, duration_ms=2.5
)


def test_rows_are_written_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "history.sqlite3"
    history = History(str(path))
    history.record("add-numbers", REPORT, "x = 1")
    history.close()
    with sqlite3.connect(path) as db:
        row = db.execute(
            "SELECT exercise_id, status, verdict, passed, total, duration_ms, code_sha256,"
            " created_at FROM submissions"
        ).fetchone()
    assert row[:6] == ("add-numbers", "fail", "wrong_answer", 4, 6, 2.5)
    assert row[6] == hashlib.sha256(b"x = 1").hexdigest()
    assert row[7] > 0


def test_in_memory_history_counts(tmp_path: Path) -> None:
    history = History(":memory:")
    for i in range(300):
        history.record("a" if i % 3 else "b", REPORT, f"code {i}")
    history.flush()
    assert history.count() == 300
    assert history.count("b") == 100
    assert history.recent(1)[0]["code_sha256"] == hashlib.sha256(b"code 299").hexdigest()
    history.close()
    history.close()  # idempotent


def test_unusable_database_disables_history(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert History.from_url(f"sqlite:///{blocker}/history.sqlite3") is None
    assert "submission history disabled" in caplog.text
    assert History.from_url(None) is None


def test_write_failure_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "history.sqlite3"
    history = History(str(path))
    with sqlite3.connect(path) as outside:
        outside.execute("DROP TABLE submissions")
    history.record("a", REPORT, "x")
    history.flush()
    assert "could not store 1 submission" in caplog.text
    assert history.state() == {"database": "sqlite", "backlog": 0, "lost": 1}
    history.record("a", REPORT, "y")  # the grade path never sees the failure
    history.flush()
    assert history.state()["lost"] == 2
    history.close()


def test_sqlite_urls() -> None:
    assert sqlite_path("sqlite:///var/judge.sqlite3") == "var/judge.sqlite3"
    assert sqlite_path("sqlite:////abs/judge.sqlite3") == "/abs/judge.sqlite3"
    assert sqlite_path("sqlite:///:memory:") == ":memory:"


def test_doctor_description_of_a_sqlite_history(tmp_path: Path) -> None:
    path = tmp_path / "not-yet" / "history.sqlite3"
    first = describe(f"sqlite:///{path}")
    assert first["enabled"] is True and "will be created on start" in str(first["detail"])
    assert not path.parent.exists(), "describing a database must not create it"
    history = History(str(path))
    history.record("a", REPORT, "x")
    history.close()
    assert describe(f"sqlite:///{path}")["detail"] == "reachable, 1 submission(s) stored"
    assert describe(None)["enabled"] is False
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    broken = describe(f"sqlite:///{blocker}")
    assert broken["enabled"] is False and str(broken["detail"]).startswith("unusable:")


def test_a_queued_row_is_a_few_small_fields_and_the_code_not_the_report() -> None:
    code = "x = 1\n" * 10_000
    row = row_values("add-numbers", REPORT, code, "ab" * 32)
    assert len(row) == len(COLUMNS)
    assert all(value is None or type(value) in (str, int, float) for value in row)
    assert row[COLUMNS.index("code")] == code
    assert row[COLUMNS.index("learner_hash")] == "ab" * 32
    assert sum(len(value) for value in row if isinstance(value, str)) < len(code) + 300
