"""Submission history in PostgreSQL, the database replicas share (docs/architecture.md, "Scale").

Against a real server: a throwaway cluster on loopback (tests/http/postgres.py).
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live_server import free_port, start_server
from postgres import PostgresServer

from app import history as history_module
from app.databases import DatabaseError, describe, open_database, redact
from app.history import History
from app.postgres import PostgresDatabase
from app.schemas import Report, Status, Verdict

REPORT = Report(
    status=Status.failed, verdict=Verdict.wrong_answer, passed=4, total=6, duration_ms=2.5
)


@pytest.fixture(autouse=True)
def spool_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's spool in its own folder (the default is var/ in the working directory)."""
    monkeypatch.setattr(history_module, "POSTGRES_SPOOL", tmp_path / "spool")


def test_rows_land_in_postgresql(postgres_server: PostgresServer, postgres_url: str) -> None:
    history = History.from_url(postgres_url)
    assert history is not None and history.database == "postgresql"
    for i in range(300):
        history.record("a" if i % 3 else "b", REPORT, f"code {i}")
    history.flush()
    assert history.count() == 300
    assert history.count("b") == 100
    newest = history.recent(1)[0]
    assert newest["code_sha256"] == hashlib.sha256(b"code 299").hexdigest()
    assert (newest["status"], newest["verdict"], newest["passed"], newest["total"]) == (
        "fail",
        "wrong_answer",
        4,
        6,
    )
    assert history.state() == {
        "database": "postgresql",
        "state": "ok",
        "backlog": 0,
        "spooled": 0,
        "lost": 0,
        "last_error": None,
    }
    history.close()
    history.close()  # idempotent
    # Seen from outside the judge, in the database itself:
    database = postgres_url.rsplit("/", 1)[1]
    assert postgres_server.sql(database, "SELECT COUNT(*) FROM submissions") == [(300,)]


def test_replicas_starting_together_share_one_table(postgres_url: str) -> None:
    """Four judges open the same empty database at once, then write concurrently."""
    start = threading.Barrier(4)
    opened: list[History | None] = [None] * 4

    def replica(index: int) -> None:
        start.wait()
        opened[index] = History.from_url(postgres_url)

    threads = [threading.Thread(target=replica, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    replicas = [h for h in opened if h is not None]
    assert len(replicas) == 4, "a replica failed to open the shared history"
    for round_ in range(50):
        for index, history in enumerate(replicas):
            history.record(f"ex-{index}", REPORT, f"{index}:{round_}")
    for history in replicas:
        history.close()
    reader = History.from_url(postgres_url)
    assert reader is not None
    assert reader.count() == 200
    assert [reader.count(f"ex-{i}") for i in range(4)] == [50, 50, 50, 50]
    reader.close()


@pytest.fixture
def history(postgres_url: str) -> Iterator[History]:
    """The judge's history on a fresh PostgreSQL database, closed after the test."""
    opened = History.from_url(postgres_url)
    assert opened is not None
    yield opened
    opened.close()


def test_history_survives_a_database_restart(
    postgres_server: PostgresServer, history: History, caplog: pytest.LogCaptureFixture
) -> None:
    history.record("a", REPORT, "before")
    history.flush()
    postgres_server.restart()  # the judge's open connection is cut
    history.record("a", REPORT, "after")
    history.flush()
    assert history.count() == 2
    assert history.state()["lost"] == 0
    assert "could not store" not in caplog.text


def test_a_dropped_table_is_made_again_and_the_row_lands(
    postgres_server: PostgresServer, postgres_url: str, history: History
) -> None:
    database = postgres_url.rsplit("/", 1)[1]
    postgres_server.sql(database, "DROP TABLE submissions")
    history.record("a", REPORT, "x")
    assert history.flush(timeout=20)
    assert history.state()["lost"] == 0
    assert postgres_server.sql(database, "SELECT COUNT(*) FROM submissions") == [(1,)]


def test_closing_does_not_hang_on_a_database_that_stopped_answering(
    postgres_server: PostgresServer, postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    history = History(open_database(postgres_url), close_timeout_s=0.5)
    history.record("a", REPORT, "first")
    history.flush()
    (backend,) = postgres_server.sql(
        "postgres",
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'judge'"
        f" AND datname = '{postgres_url.rsplit('/', 1)[1]}'",
    )[0]
    assert isinstance(backend, int)
    os.kill(backend, signal.SIGSTOP)  # the judge's session hangs mid-insert
    try:
        history.record("a", REPORT, "second")
        began = time.monotonic()
        history.close()
        assert time.monotonic() - began < 5
        assert "writer still busy" in caplog.text
    finally:
        os.kill(backend, signal.SIGCONT)
    history._writer.join(timeout=10)  # it finishes its insert, then closes the connection
    assert not history._writer.is_alive()
    database = postgres_url.rsplit("/", 1)[1]
    assert postgres_server.sql(database, "SELECT COUNT(*) FROM submissions") == [(2,)]
    sessions = (
        "SELECT COUNT(*) FROM pg_stat_activity"
        f" WHERE application_name = 'judge' AND datname = '{database}'"
    )
    deadline = time.monotonic() + 5
    while postgres_server.sql("postgres", sessions) != [(0,)]:
        assert time.monotonic() < deadline, "the late writer left its connection open"
        time.sleep(0.05)


def test_a_stop_does_not_wait_out_a_hung_write_whose_rows_are_all_spooled(
    postgres_server: PostgresServer,
    postgres_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(history_module, "STALLED_S", 0.5)
    history = History(open_database(postgres_url), spool=tmp_path / "spool")
    history.record("a", REPORT, "first")
    assert history.flush(timeout=10)
    database = postgres_url.rsplit("/", 1)[1]
    (backend,) = postgres_server.sql(
        "postgres",
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'judge'"
        f" AND datname = '{database}'",
    )[0]
    assert isinstance(backend, int)
    os.kill(backend, signal.SIGSTOP)
    try:
        history.record("a", REPORT, "second")  # in the spool, and hung in the insert
        time.sleep(1)
        began = time.monotonic()
        history.close()  # its timeout is 10 s: a stop would have waited them out
        assert time.monotonic() - began < 3
    finally:
        os.kill(backend, signal.SIGCONT)
    history._writer.join(timeout=10)  # resumed, it finishes the insert
    assert postgres_server.sql(database, "SELECT COUNT(*) FROM submissions") == [(2,)]


def test_a_server_not_up_is_retried_without_leaking_the_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"postgresql://judge:hunter2@127.0.0.1:{free_port()}/judge"  # nothing listens
    began = time.monotonic()
    history = History.from_url(url, close_timeout_s=0.2)
    assert history is not None
    assert time.monotonic() - began < 10
    history.record("a", REPORT, "x")
    state = history.state()
    assert state["state"] == "retrying" and state["backlog"] == 1
    assert "Connection refused" in str(state["last_error"])
    history.close()
    assert "cannot write" in caplog.text and "rows wait" in caplog.text
    assert "hunter2" not in caplog.text and "hunter2" not in str(state)
    assert redact(url) in caplog.text


def test_a_refused_login_stops_the_start(postgres_server: PostgresServer) -> None:
    url = postgres_server.url("no_such_database")
    with pytest.raises(DatabaseError, match="does not exist") as raised:
        History.from_url(url)
    assert raised.value.lasting


def test_doctor_description_of_a_postgresql_history(postgres_url: str, history: History) -> None:
    history.record("a", REPORT, "x")
    history.flush()
    assert describe(postgres_url) == {
        "enabled": True,
        "url": postgres_url,
        "detail": "reachable, 1 submission(s) stored",
    }
    refused = describe(f"postgresql://judge:hunter2@127.0.0.1:{free_port()}/judge")
    assert refused["enabled"] is False
    assert "Connection refused" in str(refused["detail"])
    assert "hunter2" not in str(refused)


def test_redact_hides_only_the_password() -> None:
    assert redact("postgresql://u:p%40ss@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert redact("postgresql://u@h/d") == "postgresql://u@h/d"
    assert redact("sqlite:///var/judge.sqlite3") == "sqlite:///var/judge.sqlite3"


def test_connection_is_reopened_for_reads(
    postgres_server: PostgresServer, postgres_url: str
) -> None:
    database = PostgresDatabase(postgres_url)
    assert database.count() == 0
    postgres_server.restart()
    assert database.count() == 0
    database.close()


@pytest.mark.real_judge
def test_a_served_judge_records_submissions_in_postgresql(
    tmp_path: Path, postgres_server: PostgresServer, postgres_url: str
) -> None:
    server = start_server(tmp_path, JUDGE_DATABASE_URL=postgres_url)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            health = client.get("/api/health").json()
            assert health["history"]["database"] == "postgresql"
            answer = client.post(
                "/api/exercises/speculative-decoding-verify/submissions",
                json={"code": "def verify(:\n"},
            )
            assert answer.status_code == 200
            assert answer.json()["verdict"] == "compile_error"
    finally:
        assert server.stop() == 0
    database = postgres_url.rsplit("/", 1)[1]
    rows = postgres_server.sql(database, "SELECT exercise_id, verdict FROM submissions")
    assert rows == [("speculative-decoding-verify", "compile_error")]


def test_a_nul_in_the_code_is_stored_replaced_and_holds_back_no_row(history: History) -> None:
    # PostgreSQL's text cannot hold a NUL: the learner's code is kept with U+FFFD in its place
    # (it never compiles anyway), and the rows of everyone else after it are written.
    history.record("a", REPORT, "x = 1\x00\n")
    for i in range(5):
        history.record("a", REPORT, f"code {i}")
    assert history.flush(timeout=10)
    assert history.count() == 6 and history.state()["lost"] == 0
    _, rows = history.read("SELECT code FROM submissions ORDER BY id LIMIT 1", [])
    assert rows == [("x = 1\ufffd\n",)]


def test_a_row_the_server_refuses_is_counted_lost_and_the_rest_of_its_batch_stored(
    history: History, caplog: pytest.LogCaptureFixture
) -> None:
    # 10**12 passed cases do not fit the INTEGER column: a refusal no retry can change.
    huge = REPORT.model_copy(update={"passed": 10**12, "total": 10**12})
    history.record("a", REPORT, "before")
    history.record("a", huge, "refused")
    history.record("a", REPORT, "after")
    assert history.flush(timeout=10)
    assert history.count() == 2
    state = history.state()
    assert (state["state"], state["lost"], state["backlog"]) == ("ok", 1, 0)
    _, rows = history.read("SELECT code FROM submissions ORDER BY id", [])
    assert rows == [("before",), ("after",)]
    refusals = [r.getMessage() for r in caplog.records if "refused for their content" in r.message]
    assert len(refusals) == 1 and "1 row(s)" in refusals[0], refusals
