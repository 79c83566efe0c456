"""Submission history, written by one background thread to the database a URL names.

``record`` only appends the row to the spool and to memory, so it is safe to call from the
event loop and grading never waits on the database. Rows the database cannot take (it is down,
not up yet, its disk is full) are not dropped: the writer keeps them and retries, with a
backoff, until they are written, each once (rows carry a key the database deduplicates on).
Bounds: ``BACKLOG`` rows and ``BACKLOG_BYTES`` of their text in memory; past that, rows that
reached the spool wait there only (``app.spool``: it also carries them across a judge's restart
or kill); a row that fits in neither is lost, counted and said in the log. The log says each
change of state once. Each row keeps the code (the learner gets it back) and its SHA-256,
beside the hash of the learner's id, never the id (``app.history_rows``). The backends live in
``app.databases``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from app.databases import (
    COLUMNS,
    SQLITE_PREFIX,
    Database,
    DatabaseError,
    Row,
    RowsRefused,
    SqliteDatabase,
    one_line,
    open_database,
    sqlite_path,
)
from app.history_rows import row_values
from app.schemas import Report
from app.spool import Orphan, Spool, SpoolError

log = logging.getLogger("judge.storage")

BACKLOG = 10_000
BACKLOG_BYTES = 64 * 1024 * 1024  # rows may carry a learner's source, up to its size cap each
BATCH = 256
GATHER_S = 0.05  # how long the writer lets rows gather before a write (the history lags by it)
CLOSE_TIMEOUT_S = 10
RETRY_FIRST_S = 0.25
RETRY_MAX_S = 5.0
STALLED_S = 5.0  # a write that has not answered for this long makes the history degraded
POSTGRES_SPOOL = Path("var/history-spool")
# How often an idle writer looks in the spool folder for files of judges that are gone: a
# replica killed beside a running one leaves its rows there, and nobody may start in its place.
ORPHAN_LOOK_S = 30.0


# Where a spool's rows go when its own disk is full: memory that outlives the process.
FALLBACK_ROOT = Path("/dev/shm")


def fallback_folder(spool: Path) -> Path | None:
    """The in-memory folder a spool falls back to, one per spool folder (so that the next judge
    started with the same spool finds its rows), or None where there is no /dev/shm."""
    if not (FALLBACK_ROOT.is_dir() and os.access(FALLBACK_ROOT, os.W_OK)):
        return None
    key = hashlib.sha256(str(spool.resolve()).encode()).hexdigest()[:16]
    return FALLBACK_ROOT / f"judge-history-spool-{key}"


def spool_folder(url: str, configured: str | None = None) -> Path | None:
    """Where a history on ``url`` spools: ``configured`` ("" for nowhere), else beside the
    SQLite file, or ``var/history-spool`` for a database on another machine."""
    if configured is not None:
        return Path(configured) if configured.strip() else None
    if url.startswith(SQLITE_PREFIX):
        path = sqlite_path(url)
        return None if path == ":memory:" else Path(f"{path}-spool")
    return POSTGRES_SPOOL


def _row_bytes(row: Row) -> int:
    """About what a row costs in memory: its text, plus a little for each field."""
    return sum(len(value) if isinstance(value, str) else 8 for value in row) + 100


def _row_from_spool(stored: dict[str, object]) -> Row:
    return tuple(stored.get(name) for name in COLUMNS)


class History:
    """Append-only submission log over one database (a SQLite path, or a Database)."""

    def __init__(
        self,
        database: Database | str,
        *,
        spool: Path | None = None,
        fallback: Path | None = None,
        close_timeout_s: float = CLOSE_TIMEOUT_S,
    ) -> None:
        self._db = SqliteDatabase(database) if isinstance(database, str) else database
        self._close_timeout_s = close_timeout_s
        try:
            self._spool = Spool(spool, fallback=fallback) if spool is not None else None
        except SpoolError as exc:
            raise DatabaseError(str(exc), lasting=True) from exc
        self._orphans: list[Orphan] = self._spool.orphans() if self._spool else []
        lock = threading.Lock()
        self._cond = threading.Condition(lock)  # wakes the writer: rows came, or stop
        self._progress = threading.Condition(lock)  # wakes flush(): rows were written
        self._rows: deque[Row] = deque()
        self._taken = 0  # rows the writer is writing
        self._bytes = 0  # text in self._rows, for BACKLOG_BYTES
        self._overflow = 0  # rows that reached the spool only (memory was full)
        self._replayed_to = 0  # own spool offset up to which those are written
        self._unspooled = 0  # rows in memory that the spool could not take
        self._lost = 0
        self._failing_since: float | None = None
        self._last_error: str | None = None
        self._busy_since: float | None = None
        self._stall_said = False  # the current write's stall is logged (once)
        self._warned: set[str] = set()  # conditions already logged in this episode
        self._stopping = False
        self._give_up_at = float("inf")
        self._wake = threading.Event()
        self._ending = threading.Lock()  # who closes the database: close(), or a late writer
        self._writer_done = False
        self._writer_closes = False
        try:
            self._db.prepare()
        except DatabaseError as exc:
            if exc.lasting:
                self._release_spool(keep=True)
                raise
            self._failed(exc)
        self._writer = threading.Thread(
            target=self._write_forever, name="judge-history", daemon=True
        )
        self._writer.start()

    @classmethod
    def from_url(
        cls, url: str | None, *, spool: str | None = None, **options: float
    ) -> History | None:
        """The history on ``url`` (None if unset), spooling as ``spool_folder`` says.

        Raises DatabaseError for what waiting will not cure (an unsupported URL, a refused
        login, a path that cannot be a SQLite file); a server that is merely not up is retried.
        """
        if url is None:
            return None
        try:
            database = open_database(url, connect=False)
        except ValueError as exc:
            raise DatabaseError(str(exc), lasting=True) from exc
        folder = spool_folder(url, spool)
        fallback = fallback_folder(folder) if folder is not None else None
        return cls(database, spool=folder, fallback=fallback, **options)

    @property
    def database(self) -> str:
        """The backend's kind: "sqlite" or "postgresql"."""
        return self._db.kind

    @property
    def healthy(self) -> bool:
        return self.state()["state"] == "ok"

    def state(self) -> dict[str, object]:
        """What /api/health shows: writing ("ok") or not, rows waiting, spooled and lost."""
        with self._cond:
            if self._failing_since is not None:
                state = "retrying"
            elif self._stalled():
                state = "stalled"
            else:
                state = "ok"
            spooled = (self._spool.rows if self._spool else 0) + sum(o.rows for o in self._orphans)
            return {
                "database": self._db.kind,
                "state": state,
                "backlog": len(self._rows) + self._taken + self._overflow,
                "spooled": spooled,
                "lost": self._lost,
                "last_error": self._last_error if state != "ok" else None,
            }

    def _stalled(self) -> bool:
        """Whether a write has waited past STALLED_S (the caller holds the lock); said once in
        the log and as the last error, as a failing write is. The writer is stuck inside the
        database's call, so whoever looks (health, a new row) notices."""
        busy = self._busy_since
        if busy is None or time.monotonic() - busy <= STALLED_S:
            return False
        if not self._stall_said:
            self._stall_said = True
            self._last_error = f"a write has waited over {STALLED_S:.0f} s for the database"
            log.error(
                "submission history: the database has not answered a write for %.0f s; rows "
                "wait and are written when it does",
                time.monotonic() - busy,
            )
        return True

    def record(
        self, exercise_id: str, report: Report, code: str, learner: str | None = None
    ) -> None:
        """Keep one graded submission for writing; never blocks on the database, never raises.
        ``learner``: the hash of the learner's id, never the id."""
        row = row_values(exercise_id, report, code, learner)
        with self._cond:
            self._stalled()
            spooled = self._spool is not None and self._spool.append(
                dict(zip(COLUMNS, row, strict=True))
            )
            if self._spool is not None and not spooled:
                self._warn_once("spool", f"cannot spool rows ({self._spool.broken})")
            size = _row_bytes(row)
            if len(self._rows) < BACKLOG and self._bytes + size <= BACKLOG_BYTES:
                self._rows.append(row)
                self._bytes += size
                self._unspooled += not spooled
                self._cond.notify()
            elif spooled:
                self._overflow += 1
                self._warn_once(
                    "memory", "the rows in memory reached their bound; more wait in the spool"
                )
            else:
                self._lost += 1
                self._warn_once("lost", "backlog full and nowhere to spool: rows are being LOST")

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every row recorded so far is written (tests, shutdown); False on timeout."""
        with self._progress:
            return self._progress.wait_for(self._settled, timeout)

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
        """Write what waits (for up to ``close_timeout_s``), stop the writer, close; idempotent.

        Rows still unwritten then stay in the spool for the next judge (or are counted lost if
        they never reached it). A writer stuck in a database that stopped answering holds the
        connection, so it is left to close it itself if it ever returns (a daemon thread: it
        ends with the process anyway).
        """
        with self._cond:
            if not self._stopping:
                self._stopping = True
                self._give_up_at = time.monotonic() + self._close_timeout_s
            self._cond.notify_all()
        self._wake.set()
        deadline = time.monotonic() + self._close_timeout_s + 1
        while self._writer.is_alive() and time.monotonic() < deadline:
            self._writer.join(timeout=0.1)
            with self._cond:
                busy, unspooled = self._busy_since, self._unspooled
            if busy is not None and time.monotonic() - busy > STALLED_S and not unspooled:
                # Hung in a database that answers nothing, every row waiting in the spool:
                # waiting out the timeout would only hold the stop (past a container's grace).
                break
        with self._ending:
            if not self._writer_done:
                self._writer_closes = True
                with self._cond:
                    waiting, unspooled = self._unwritten(self._taken)
                log.error(
                    "submission history: writer still busy after %s s; not waiting for it: "
                    "%d row(s) unwritten, %d of them in no spool and lost if it never returns",
                    self._close_timeout_s,
                    waiting,
                    unspooled,
                )
                return
        self._db.close()

    # The writer thread.

    def _settled(self) -> bool:
        return not self._rows and not self._taken and not self._overflow and not self._orphans

    def _write_forever(self) -> None:
        delay = RETRY_FIRST_S
        batch: list[Row] = []
        while True:
            if not batch:
                with self._cond:
                    woke = self._cond.wait_for(
                        lambda: self._rows or self._stopping or self._spool_work(),
                        timeout=ORPHAN_LOOK_S,
                    )
                    # Only rows just recorded gather; woken for the spool alone, write at once.
                    gather = 0 < len(self._rows) < BATCH and not self._stopping
                if not woke:
                    self._adopt_orphans()
                    continue
                if gather:
                    # Outside the lock and not waiting on it: the grades recorded meanwhile wake
                    # no thread and go in the same transaction. One wake-up and one transaction
                    # per grade made the history the web process's second-costliest thread.
                    time.sleep(GATHER_S)
            with self._cond:
                if not batch:
                    batch = [self._rows.popleft() for _ in range(min(BATCH, len(self._rows)))]
                    self._bytes -= sum(map(_row_bytes, batch))
                    self._taken = len(batch)
            try:
                self._replay_orphans()
                self._write(batch)
                with self._cond:
                    self._taken = 0
                    self._progress.notify_all()
                batch = []
                self._replay_overflow()
                self._settle()
                delay = RETRY_FIRST_S
            except Exception as exc:  # noqa: BLE001 - any failure waits and retries, never kills
                self._db.reset()
                self._failed(exc)
                if time.monotonic() < self._give_up_at:
                    if self._wake.wait(delay):
                        self._wake.clear()
                    delay = min(delay * 2, RETRY_MAX_S)
                    continue
            with self._cond:
                if self._stopping and (self._settled() or time.monotonic() >= self._give_up_at):
                    break
        self._finish(len(batch))

    def _spool_work(self) -> bool:
        return bool(self._overflow or self._orphans or self._failing_since is not None)

    def _write(self, rows: list[Row]) -> None:
        if not rows:
            self._db.prepare()  # a retry with nothing in hand: is the database back?
            return
        started = time.monotonic()
        with self._cond:
            self._busy_since = started
        try:
            self._db.insert(rows)
        except RowsRefused as refused:
            # Stored but for rows the database will never take: counted lost, said, and not
            # retried (they would hold back every row behind them).
            with self._cond:
                self._lost += refused.refused
            log.error(
                "submission history: %d row(s) refused for their content and LOST, the rest "
                "of its batch stored (%s)",
                refused.refused,
                refused,
            )
        finally:
            with self._cond:
                waited = time.monotonic() - started
                self._busy_since = None
                said, self._stall_said = self._stall_said, False
                if said and self._failing_since is None:
                    self._last_error = None
            if said:
                log.warning("submission history: the database answered after %.1f s", waited)

    def _batches(self, stored: Iterable[dict[str, object]]) -> Iterator[list[Row]]:
        batch: list[Row] = []
        for row in stored:
            batch.append(_row_from_spool(row))
            if len(batch) == BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    def _adopt_orphans(self) -> None:
        """Take the spool files of judges that are gone (a replica killed while this one runs),
        for ``_replay_orphans``; each is locked by this judge from then on."""
        if self._spool is None:
            return
        found = self._spool.orphans()
        if found:
            with self._cond:
                self._orphans.extend(found)
                self._cond.notify()

    def _replay_orphans(self) -> None:
        while self._orphans:
            orphan = self._orphans[0]
            for batch in self._batches(orphan.read()):
                self._write(batch)
            if orphan.rows:
                log.warning(
                    "submission history: %d row(s) a judge that is gone left in %s are stored",
                    orphan.rows,
                    orphan.path,
                )
            with self._cond:
                self._orphans.pop(0)
                self._progress.notify_all()
            orphan.done()

    def _replay_overflow(self) -> None:
        spool = self._spool
        with self._cond:
            if spool is None or not self._overflow:
                return
            waiting, start, end = self._overflow, self._replayed_to, spool.size
        for batch in self._batches(spool.read(start, end)):
            self._write(batch)
        with self._cond:
            self._overflow -= waiting
            self._replayed_to = end
            self._progress.notify_all()

    def _settle(self) -> None:
        """After a write: empty the spool once all of it is stored, and say a recovery once."""
        with self._cond:
            if self._settled():
                if self._spool is not None:
                    self._spool.clear()
                self._replayed_to = 0
                self._unspooled = 0
            if self._failing_since is None:
                return
            waited = time.monotonic() - self._failing_since
            self._failing_since = None
            self._last_error = None
            self._warned.clear()
            lost = self._lost
        log.warning(
            "submission history: writing again after %.1f s (%d row(s) lost in all)", waited, lost
        )

    def _failed(self, exc: BaseException) -> None:
        error = one_line(exc) if isinstance(exc, DatabaseError) else f"{type(exc).__name__}: {exc}"
        with self._cond:
            self._last_error = error
            if self._failing_since is not None:
                return
            self._failing_since = time.monotonic()
        where = f", then in the spool {self._spool.folder}" if self._spool else ""
        log.error(
            "submission history: cannot write (%s); rows wait (in memory up to %d rows or %d "
            "MiB%s) and are retried",
            error,
            BACKLOG,
            BACKLOG_BYTES >> 20,
            where,
        )

    def _warn_once(self, condition: str, message: str) -> None:
        if condition not in self._warned:
            self._warned.add(condition)
            log.warning("submission history: %s", message)

    def _unwritten(self, held: int) -> tuple[int, int]:
        """Rows not yet written, ``held`` by the writer among them, and how many of those are
        in no spool (the caller holds the lock)."""
        waiting = len(self._rows) + held
        return waiting + self._overflow, min(self._unspooled, waiting)

    def _finish(self, held: int) -> None:
        """The writer's last act: what is left stays in the spool or is counted lost."""
        with self._cond:
            left, lost = self._unwritten(held)
            self._lost += lost
        self._release_spool(keep=left > 0)
        if left:
            where = f"; in the spool: {left - lost}" if self._spool else ""
            log.error(
                "submission history: stopped with %d row(s) unwritten (%d lost%s)",
                left,
                lost,
                where,
            )
        with self._ending:
            self._writer_done = True
            if self._writer_closes:
                self._db.close()

    def _release_spool(self, *, keep: bool) -> None:
        for orphan in self._orphans:
            orphan.release()  # not replayed: the next judge to start takes it
        if self._spool is not None:
            self._spool.close(keep=keep)
