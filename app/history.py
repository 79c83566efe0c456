"""Submission history, written by one background thread to the database a URL names.

``record`` only enqueues, so it is safe to call from the event loop; a failing disk or database
server costs history rows (logged and counted), never a grade. The code is stored (the learner
gets it back) with its SHA-256, beside the learner id's hash, never the id. The backends
(SQLite, PostgreSQL) live in ``app.databases``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import threading
import time
from collections.abc import Sequence
from typing import Any

from app.databases import Database, DatabaseError, SqliteDatabase, open_database, redact
from app.schemas import Report, Status

log = logging.getLogger("judge.storage")

BACKLOG = 10_000
BATCH = 256
CLOSE_TIMEOUT_S = 10
_STOP = None
NOT_RUN_PREFIX = "not run:"  # app.reports.not_run_message: a case after the one that spent it


def failed_cases(report: Report) -> str | None:
    """The cases of ``report`` that ran and failed, as JSON, for the instructor's statistics.

    A report where nothing ran (a compile error, refused code) fails no case in particular, and
    a case left unrun because an earlier one spent the budget was not failed by the learner.
    """
    if report.status is Status.error:
        return None
    failed = [
        {"name": test.name, "group": test.group.value, "hint": test.hint}
        for test in report.tests
        if test.status is not Status.passed and not (test.message or "").startswith(NOT_RUN_PREFIX)
    ]
    return json.dumps(failed, separators=(",", ":"))


def row_values(
    exercise_id: str, report: Report, code: str, learner: str | None = None
) -> tuple[object, ...]:
    """One submission as the database stores it, in ``app.databases.COLUMNS`` order.

    Made when the submission is recorded, so the backlog holds a few fields per row, not the
    whole report. ``learner`` is the learner id's hash (``app.learners.learner_hash``).
    """
    text = code.encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(text).hexdigest()
    return (
        exercise_id,
        time.time(),
        report.status.value,
        report.verdict.value,
        report.passed,
        report.total,
        report.duration_ms,
        digest,
        learner,
        report.mode.value,
        # Stored as the learner can get it back; a lone surrogate (valid in JSON, not in UTF-8)
        # would make a PostgreSQL insert fail and lose the row, so it is replaced.
        text.decode("utf-8", "replace"),
        failed_cases(report),
    )


class History:
    """Append-only submission log over one database (a SQLite path, or an opened Database)."""

    def __init__(
        self, database: Database | str, *, close_timeout_s: float = CLOSE_TIMEOUT_S
    ) -> None:
        self._db = SqliteDatabase(database) if isinstance(database, str) else database
        self._close_timeout_s = close_timeout_s
        self._queue: queue.Queue[tuple[object, ...] | None] = queue.Queue(maxsize=BACKLOG)
        self._lost = 0  # rows dropped (backlog full) or not stored (database error)
        self._lost_lock = threading.Lock()  # the event loop and the writer both count
        self._ending = threading.Lock()  # who closes the database: close(), or a late writer
        self._writer_done = False
        self._writer_closes = False
        self._writer = threading.Thread(
            target=self._write_forever, name="judge-history", daemon=True
        )
        self._writer.start()

    @classmethod
    def from_url(cls, url: str | None) -> History | None:
        """Open the database named by ``url``; None (history off) if unset or unusable (logged)."""
        if url is None:
            return None
        try:
            return cls(open_database(url))
        except (DatabaseError, ValueError) as exc:
            log.error("submission history disabled: cannot open %s: %s", redact(url), exc)
            return None

    @property
    def database(self) -> str:
        """The backend's kind: "sqlite" or "postgresql"."""
        return self._db.kind

    def state(self) -> dict[str, object]:
        """What an operator wants to see in /api/health: backend, rows waiting, rows lost."""
        return {"database": self._db.kind, "backlog": self._queue.qsize(), "lost": self._lost}

    def record(
        self, exercise_id: str, report: Report, code: str, learner: str | None = None
    ) -> None:
        """Queue one graded submission for writing; never blocks, never raises."""
        try:
            self._queue.put_nowait(row_values(exercise_id, report, code, learner))
        except queue.Full:
            self._count_lost(1)
            log.warning("submission history backlog full; dropping a row for %s", exercise_id)

    def flush(self) -> None:
        """Block until every queued row is written (tests, shutdown)."""
        self._queue.join()

    def count(self, exercise_id: str | None = None) -> int:
        """How many submissions are stored, for one exercise or all."""
        return self._db.count(exercise_id)

    def recent(self, limit: int = 20) -> list[dict[str, object]]:
        """The latest rows, newest first, as dicts."""
        return self._db.recent(limit)

    def read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        """One read query on the history's database (``app.history_queries`` makes them);
        blocking: call it from a thread. Raises DatabaseError when the database cannot answer."""
        return self._db.read(sql, args)

    @property
    def placeholder(self) -> str:
        """How the backend marks a query's arguments ("?" or "%s")."""
        return self._db.placeholder

    def close(self) -> None:
        """Write what is queued, stop the writer, close the connection; idempotent.

        Waits at most ``close_timeout_s`` for the writer: one stuck in a database that stopped
        answering holds the connection, so it is left to close it itself if it ever returns
        (it is a daemon thread: it ends with the process anyway).
        """
        if self._writer.is_alive():
            self._queue.put(_STOP)
            self._writer.join(timeout=self._close_timeout_s)
        with self._ending:
            if not self._writer_done:
                self._writer_closes = True
                log.error(
                    "submission history: writer still busy after %s s; not waiting for it",
                    self._close_timeout_s,
                )
                return
        self._db.close()

    def _count_lost(self, rows: int) -> None:
        with self._lost_lock:
            self._lost += rows

    def _write_forever(self) -> None:
        while True:
            batch = [self._queue.get()]
            while batch[-1] is not _STOP and len(batch) < BATCH:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            rows = [row for row in batch if row is not None]
            try:
                if rows:
                    self._db.insert(rows)
            except (DatabaseError, ValueError):
                self._count_lost(len(rows))
                log.exception("could not store %d submission(s)", len(rows))
            finally:
                for _ in batch:
                    self._queue.task_done()
            if batch[-1] is _STOP:
                with self._ending:
                    self._writer_done = True
                    if self._writer_closes:
                        self._db.close()
                return
