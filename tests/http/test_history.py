"""Submission history: rows written off the request path; a failing database loses none of them.

The faults here are made to order (a database whose writes fail until told otherwise, over a
real SQLite file); the real ones (PostgreSQL stopped, a full disk, a killed judge) are in
tests/http/test_history_faults.py.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from app import history as history_module
from app.databases import COLUMNS, DatabaseError, Row, SqliteDatabase, describe, sqlite_path
from app.history import History, spool_folder
from app.history_rows import row_values
from app.schemas import Report, Status, Verdict

REPORT = Report(
    status=Status.failed, verdict=Verdict.wrong_answer, passed=4, total=6, duration_ms=2.5
)


class Flaky(SqliteDatabase):
    """A real SQLite file whose writes fail while ``down`` (a server that went away)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.down = False
        self.attempts = 0

    def prepare(self) -> None:
        if self.down:
            raise DatabaseError("connection refused (made to order)")
        super().prepare()

    def insert(self, rows: Sequence[Row]) -> None:
        self.attempts += 1
        if self.down:
            raise DatabaseError("connection refused (made to order)")
        super().insert(rows)


def stored_digests(path: Path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [row[0] for row in db.execute("SELECT code_sha256 FROM submissions ORDER BY id")]


def digest(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def history_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "judge.storage"]


def test_rows_are_written_to_a_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "history.sqlite3"
    history = History(str(path))
    history.record("add-numbers", REPORT, "x = 1")
    history.close()
    with sqlite3.connect(path) as db:
        row = db.execute(
            "SELECT exercise_id, status, verdict, passed, total, duration_ms, code_sha256,"
            " created_at, row_key FROM submissions"
        ).fetchone()
    assert row[:6] == ("add-numbers", "fail", "wrong_answer", 4, 6, 2.5)
    assert row[6] == digest("x = 1")
    assert row[7] > 0
    assert len(row[8]) == 32


def test_in_memory_history_counts() -> None:
    history = History(":memory:")
    for i in range(300):
        history.record("a" if i % 3 else "b", REPORT, f"code {i}")
    assert history.flush(timeout=10)
    assert history.count() == 300
    assert history.count("b") == 100
    assert history.recent(1)[0]["code_sha256"] == digest("code 299")
    assert history.state() == {
        "database": "sqlite",
        "state": "ok",
        "backlog": 0,
        "spooled": 0,
        "lost": 0,
        "last_error": None,
    }
    history.close()
    history.close()  # idempotent


def test_a_path_that_cannot_be_a_database_stops_the_start(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(DatabaseError, match="cannot open SQLite database") as raised:
        History.from_url(f"sqlite:///{blocker}/history.sqlite3")
    assert raised.value.lasting
    assert History.from_url(None) is None


def test_a_row_is_written_once_however_often_it_is_sent(tmp_path: Path) -> None:
    database = SqliteDatabase(str(tmp_path / "h.sqlite3"))
    rows = [row_values("a", REPORT, f"code {i}") for i in range(3)]
    database.insert(rows)
    database.insert(rows[1:])  # a batch sent again: its COMMIT's answer was lost
    assert database.count() == 3
    database.close()


def test_a_database_file_deleted_while_open_is_written_back_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # SQLite goes on writing into a deleted file that no one can open again: the rows before
    # the deletion and every one after would be gone at the next start.
    path = tmp_path / "h.sqlite3"
    database = SqliteDatabase(str(path))
    database.insert([row_values("a", REPORT, f"before {i}") for i in range(3)])
    for leftover in tmp_path.iterdir():  # the file, its WAL and shared memory, as rm h.sqlite3*
        leftover.unlink()
    with caplog.at_level(logging.WARNING, logger="judge.storage"):
        database.insert([row_values("a", REPORT, f"after {i}") for i in range(2)])
    database.close()
    codes = [f"before {i}" for i in range(3)] + [f"after {i}" for i in range(2)]
    assert stored_digests(path) == [digest(code) for code in codes]
    assert history_lines(caplog) == [
        f"submission history: {path} was deleted while open; its rows were written back"
    ]


def test_a_database_file_replaced_while_open_is_the_one_written_to(tmp_path: Path) -> None:
    # An operator putting a copy back (a restore): the file at the path is the database.
    path = tmp_path / "h.sqlite3"
    database = SqliteDatabase(str(path))
    database.insert([row_values("a", REPORT, "first")])
    copy = SqliteDatabase(str(tmp_path / "copy.sqlite3"))
    copy.insert([row_values("a", REPORT, "restored")])
    copy.close()
    for leftover in tmp_path.glob("h.sqlite3*"):  # the old file, its WAL and shared memory
        leftover.unlink()
    (tmp_path / "copy.sqlite3").replace(path)
    database.insert([row_values("a", REPORT, "after")])
    database.close()
    assert stored_digests(path) == [digest("restored"), digest("after")]


def test_an_older_table_gets_the_row_key(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    with sqlite3.connect(path) as db:
        db.executescript(
            "CREATE TABLE submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, exercise_id TEXT,"
            " created_at REAL, status TEXT, verdict TEXT, passed INTEGER, total INTEGER,"
            " duration_ms REAL, code_sha256 TEXT);"
            "INSERT INTO submissions VALUES (NULL, 'a', 1.0, 'pass', 'accepted', 6, 6, 1.0, 'x');"
        )
    history = History(str(path))
    history.record("a", REPORT, "new")
    history.close()
    assert stored_digests(path) == ["x", digest("new")]


def test_rows_wait_while_the_database_is_down_and_are_written_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "judge.storage")
    path = tmp_path / "h.sqlite3"
    database = Flaky(str(path))
    history = History(database)
    database.down = True
    for i in range(50):
        history.record("a", REPORT, f"code {i}")
    assert not history.flush(timeout=1)
    state = history.state()
    assert state["state"] == "retrying" and state["backlog"] == 50 and state["lost"] == 0
    assert state["last_error"] == "connection refused (made to order)"
    assert database.attempts > 1, "the writer did not retry"
    database.down = False
    assert history.flush(timeout=10)
    assert history.state()["state"] == "ok" and history.state()["last_error"] is None
    history.close()
    assert stored_digests(path) == [digest(f"code {i}") for i in range(50)]
    lines = history_lines(caplog)
    assert len(lines) == 2, lines  # one when it fails, one when it writes again
    assert "cannot write (connection refused (made to order))" in lines[0]
    assert "writing again" in lines[1]


def test_a_dropped_table_is_made_again(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    history = History(str(path))
    with sqlite3.connect(path) as outside:
        outside.execute("DROP TABLE submissions")
    history.record("a", REPORT, "x")
    assert history.flush(timeout=10)
    history.close()
    assert stored_digests(path) == [digest("x")]


def test_past_the_memory_bound_rows_wait_in_the_spool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(history_module, "BACKLOG", 10)
    path = tmp_path / "h.sqlite3"
    database = Flaky(str(path))
    database.down = True
    history = History(database, spool=tmp_path / "spool")
    for i in range(25):
        history.record("a", REPORT, f"code {i}")
    state = history.state()
    assert (state["backlog"], state["spooled"], state["lost"]) == (25, 25, 0)
    assert "more wait in the spool" in caplog.text
    database.down = False
    assert history.flush(timeout=10)
    assert history.state()["spooled"] == 0
    history.close()
    assert sorted(stored_digests(path)) == sorted(digest(f"code {i}") for i in range(25))
    assert list((tmp_path / "spool").iterdir()) == [], "the spool was not emptied"


def test_the_memory_bound_counts_bytes_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "BACKLOG_BYTES", 2000)
    database = Flaky(str(tmp_path / "h.sqlite3"))
    database.down = True
    history = History(database)
    for i in range(25):
        history.record("a" * 500, REPORT, f"code {i}")  # about 700 bytes a row
    assert history.state()["lost"] == 23
    database.down = False
    assert history.flush(timeout=10)
    assert history.count() == 2
    history.close()


def test_without_a_spool_rows_past_the_bound_are_counted_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(history_module, "BACKLOG", 10)
    database = Flaky(str(tmp_path / "h.sqlite3"))
    database.down = True
    history = History(database)
    for i in range(25):
        history.record("a", REPORT, f"code {i}")
    assert history.state()["lost"] == 15
    assert sum("rows are being LOST" in line for line in history_lines(caplog)) == 1
    database.down = False
    assert history.flush(timeout=10)
    assert history.count() == 10
    history.close()


def test_rows_unwritten_at_stop_are_written_by_the_next_judge(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "h.sqlite3"
    spool = tmp_path / "spool"
    database = Flaky(str(path))
    database.down = True
    first = History(database, spool=spool, close_timeout_s=0.3)
    for i in range(40):
        first.record("a", REPORT, f"code {i}")
    first.close()  # the database never came back: the rows stay in the spool
    assert "stopped with 40 row(s) unwritten (0 lost; in the spool: 40)" in caplog.text
    assert stored_digests(path) == []
    second = History(str(path), spool=spool)
    assert second.state()["spooled"] == 40
    assert second.flush(timeout=10)
    second.close()
    assert sorted(stored_digests(path)) == sorted(digest(f"code {i}") for i in range(40))
    assert list(spool.iterdir()) == []


def test_a_spool_folder_deleted_while_in_use_is_written_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "h.sqlite3"
    spool = tmp_path / "spool"
    database = Flaky(str(path))
    database.down = True
    history = History(database, spool=spool)
    for i in range(10):
        history.record("a", REPORT, f"code {i}")
    shutil.rmtree(spool)  # an operator's clean-up, while the database is down
    for i in range(10, 20):
        history.record("a", REPORT, f"code {i}")
    # On disk again, all twenty: what a kill now would leave for the next judge.
    (file,) = spool.glob("rows-*.jsonl")
    assert len(file.read_bytes().splitlines()) == 20
    assert history.state()["spooled"] == 20
    assert (
        sum(
            "was deleted while in use; written back (10 rows)" in line
            for line in history_lines(caplog)
        )
        == 1
    )
    database.down = False
    assert history.flush(timeout=10)
    history.close()
    assert sorted(stored_digests(path)) == sorted(digest(f"code {i}") for i in range(20))


def test_a_running_judge_takes_the_rows_of_one_gone_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two replicas share a spool folder; one stops with its rows unwritten and never comes back.
    monkeypatch.setattr(history_module, "ORPHAN_LOOK_S", 0.2)
    path, spool = tmp_path / "h.sqlite3", tmp_path / "spool"
    running = History(str(path), spool=spool)
    database = Flaky(str(path))
    database.down = True
    gone = History(database, spool=spool, close_timeout_s=0.3)
    for i in range(5):
        gone.record("a", REPORT, f"code {i}")
    gone.close()
    deadline = time.monotonic() + 10
    while running.count() < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(stored_digests(path)) == sorted(digest(f"code {i}") for i in range(5))
    assert running.flush(timeout=10)
    running.close()
    assert [p.name for p in spool.iterdir()] == []


def test_a_spool_in_use_by_a_running_judge_is_not_taken(tmp_path: Path) -> None:
    database = Flaky(str(tmp_path / "a.sqlite3"))
    database.down = True
    running = History(database, spool=tmp_path / "spool")
    running.record("a", REPORT, "waits")
    other = History(str(tmp_path / "b.sqlite3"), spool=tmp_path / "spool")
    assert other.state()["spooled"] == 0
    other.close()
    database.down = False
    running.close()
    assert stored_digests(tmp_path / "a.sqlite3") == [digest("waits")]
    assert stored_digests(tmp_path / "b.sqlite3") == []


def test_where_the_spool_goes() -> None:
    assert spool_folder("sqlite:///var/judge.sqlite3") == Path("var/judge.sqlite3-spool")
    assert spool_folder("sqlite:///:memory:") is None
    assert spool_folder("postgresql://u@h/d") == Path("var/history-spool")
    assert spool_folder("postgresql://u@h/d", "/srv/spool") == Path("/srv/spool")
    assert spool_folder("sqlite:///x.db", "") is None


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


class Frozen(SqliteDatabase):
    """A real SQLite file whose writes wait, without failing, until ``thawed`` is set (a
    database server stopped with SIGSTOP keeps its connections and answers nothing)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.thawed = threading.Event()

    def insert(self, rows: Sequence[Row]) -> None:
        self.thawed.wait(30)
        super().insert(rows)


def test_a_write_the_database_does_not_answer_is_said_once_and_its_end_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history_module, "STALLED_S", 0.1)
    path = tmp_path / "h.sqlite3"
    database = Frozen(str(path))
    history = History(database)
    with caplog.at_level(logging.WARNING, logger="judge.storage"):
        history.record("a", REPORT, "x = 1")
        time.sleep(0.3)
        states = [history.state() for _ in range(3)]  # looked at three times, said once
        assert {s["state"] for s in states} == {"stalled"}
        assert "has waited over" in str(states[0]["last_error"])
        database.thawed.set()
        assert history.flush(10)
        assert history.state()["state"] == "ok" and history.state()["last_error"] is None
        history.close()
    lines = history_lines(caplog)
    assert len(lines) == 2, lines
    assert lines[0].startswith("submission history: the database has not answered a write")
    assert lines[1].startswith("submission history: the database answered after")
    assert stored_digests(path) == [digest("x = 1")]
