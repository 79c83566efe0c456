"""Submission history in SQLite (stdlib ``sqlite3``), written by one background thread.

``record`` only enqueues, so it is safe to call from the event loop; a failing disk costs
history rows (logged), never a grade. The code itself is not stored, only its SHA-256.
"""

from __future__ import annotations

import hashlib
import logging
import queue
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from app.config import SQLITE_PREFIX
from app.schemas import Report

log = logging.getLogger("judge.storage")

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    exercise_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    status TEXT NOT NULL,
    verdict TEXT NOT NULL,
    passed INTEGER NOT NULL,
    total INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    code_sha256 TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_by_exercise ON submissions (exercise_id, created_at);
"""
INSERT = (
    "INSERT INTO submissions (exercise_id, created_at, status, verdict, passed, total,"
    " duration_ms, code_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
BACKLOG = 10_000
_STOP = None


@dataclass(frozen=True)
class _Row:
    exercise_id: str
    created_at: float
    report: Report
    code: str

    def values(self) -> tuple[object, ...]:
        r = self.report
        digest = hashlib.sha256(self.code.encode("utf-8", "surrogatepass")).hexdigest()
        return (
            self.exercise_id,
            self.created_at,
            r.status.value,
            r.verdict.value,
            r.passed,
            r.total,
            r.duration_ms,
            digest,
        )


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////abs/x.db`` -> ``/abs/x.db``."""
    if not url.startswith(SQLITE_PREFIX):
        raise ValueError(f"not a sqlite URL: {url!r}")
    return url[len(SQLITE_PREFIX) :]


class History:
    """Append-only submission log; one connection, used under a lock by the writer and readers."""

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            if path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        self._queue: queue.Queue[_Row | None] = queue.Queue(maxsize=BACKLOG)
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
            return cls(sqlite_path(url))
        except (OSError, sqlite3.Error, ValueError):
            log.exception("submission history disabled: cannot open %s", url)
            return None

    def record(self, exercise_id: str, report: Report, code: str) -> None:
        """Queue one graded submission for writing; never blocks, never raises."""
        try:
            self._queue.put_nowait(_Row(exercise_id, time.time(), report, code))
        except queue.Full:
            log.warning("submission history backlog full; dropping a row for %s", exercise_id)

    def flush(self) -> None:
        """Block until every queued row is written (tests, shutdown)."""
        self._queue.join()

    def count(self, exercise_id: str | None = None) -> int:
        """How many submissions are stored, for one exercise or all."""
        sql, args = "SELECT COUNT(*) FROM submissions", cast(tuple[str, ...], ())
        if exercise_id is not None:
            sql, args = sql + " WHERE exercise_id = ?", (exercise_id,)
        with self._lock:
            return int(self._db.execute(sql, args).fetchone()[0])

    def recent(self, limit: int = 20) -> list[dict[str, object]]:
        """The latest rows, newest first, as dicts."""
        with self._lock:
            cursor = self._db.execute(
                "SELECT * FROM submissions ORDER BY id DESC LIMIT ?", (limit,)
            )
            names = [d[0] for d in cursor.description]
            return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def close(self) -> None:
        """Write what is queued, stop the writer, close the connection; idempotent."""
        if self._writer.is_alive():
            self._queue.put(_STOP)
            self._writer.join(timeout=10)
        with self._lock:
            self._db.close()

    def _write_forever(self) -> None:
        while True:
            batch = [self._queue.get()]
            while batch[-1] is not _STOP and len(batch) < 256:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            rows = [row for row in batch if row is not None]
            try:
                if rows:
                    self._insert(rows)
            except (sqlite3.Error, ValueError):
                log.exception("could not store %d submission(s)", len(rows))
            finally:
                for _ in batch:
                    self._queue.task_done()
            if batch[-1] is _STOP:
                return

    def _insert(self, rows: list[_Row]) -> None:
        values = [row.values() for row in rows]
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(INSERT, values)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
