"""Where the submission history lives: a SQLite file (the default) or a PostgreSQL server.

A database is named by a URL, as docs/architecture.md says: ``sqlite:///PATH`` for one judge,
``postgresql://USER:PASSWORD@HOST:PORT/DB`` when replicas share their history. Both backends
store the same ``submissions`` table and answer the same calls (prepare, insert, reset, count,
recent, read, close); ``app.history.History`` decides when to call them. Every call is made
under the backend's own lock, so one connection serves the writer thread and the readers.

Each row carries a ``row_key`` drawn when it was recorded, unique in the table: an insert skips
the keys already stored, so a batch written again (its COMMIT's answer lost, or replayed from the
spool after a restart) is stored once.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

log = logging.getLogger("judge.storage")

SQLITE_PREFIX = "sqlite:///"
POSTGRES_SCHEMES = ("postgresql", "postgres")
SUPPORTED = "'sqlite:///PATH', 'sqlite:///:memory:' or 'postgresql://USER@HOST[:PORT]/DATABASE'"

COLUMNS = (
    "exercise_id",
    "created_at",
    "status",
    "verdict",
    "passed",
    "total",
    "duration_ms",
    "code_sha256",
    "row_key",
    "learner_hash",
    "mode",
    "code",
    "failed",
)
Row = tuple[object, ...]  # one value per name in COLUMNS

SQLITE_SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    exercise_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    status TEXT NOT NULL,
    verdict TEXT NOT NULL,
    passed INTEGER NOT NULL,
    total INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    code_sha256 TEXT NOT NULL,
    row_key TEXT
);
CREATE INDEX IF NOT EXISTS submissions_by_exercise ON submissions (exercise_id, created_at);
"""
# A table made before rows had keys gets the column; the unique index is made after it.
ROW_KEY_COLUMN = "ALTER TABLE submissions ADD COLUMN row_key TEXT"
ROW_KEY_INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS submissions_row_key ON submissions (row_key)"
# The learner's and instructor's columns: NULLable, added to an existing table at open (a row
# written, or spooled, before them keeps NULL there). learner_hash is the SHA-256 of the
# learner's cookie, never the cookie; failed is a JSON list of the cases that ran and failed.
ADDED_COLUMNS = (("learner_hash", "TEXT"), ("mode", "TEXT"), ("code", "TEXT"), ("failed", "TEXT"))
# The learner's own pages read by learner; the instructor's statistics group by exercise, then
# learner, in time order: each reads one index range, never the whole table per learner.
ADDED_INDEXES = (
    "CREATE INDEX IF NOT EXISTS submissions_by_learner"
    " ON submissions (learner_hash, exercise_id, created_at)",
    "CREATE INDEX IF NOT EXISTS submissions_by_exercise_learner"
    " ON submissions (exercise_id, learner_hash, created_at)",
)

POSTGRES_SCHEMA = (
    """
    CREATE TABLE IF NOT EXISTS submissions (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        exercise_id TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        status TEXT NOT NULL,
        verdict TEXT NOT NULL,
        passed INTEGER NOT NULL,
        total INTEGER NOT NULL,
        duration_ms DOUBLE PRECISION NOT NULL,
        code_sha256 TEXT NOT NULL,
        row_key TEXT
    )
    """,
    "CREATE INDEX IF NOT EXISTS submissions_by_exercise ON submissions (exercise_id, created_at)",
    "ALTER TABLE submissions ADD COLUMN IF NOT EXISTS row_key TEXT",
    ROW_KEY_INDEX,
    *(f"ALTER TABLE submissions ADD COLUMN IF NOT EXISTS {n} {t}" for n, t in ADDED_COLUMNS),
    *ADDED_INDEXES,
)


class DatabaseError(Exception):
    """The history database cannot be opened or used; the message is safe to log.

    ``lasting`` when waiting will not help (a refused password, a database that does not exist,
    a path that cannot be a SQLite file): a start-up with it stops instead of retrying.
    """

    def __init__(self, message: str, *, lasting: bool = False) -> None:
        super().__init__(message)
        self.lasting = lasting


class RowsRefused(DatabaseError):
    """The database stored a batch but for ``refused`` of its rows, which it refuses for their
    content (a retry cannot change that): the others are in, those can never be."""

    def __init__(self, message: str, refused: int) -> None:
        super().__init__(message)
        self.refused = refused


class Database(Protocol):
    """What the history needs from a backend."""

    kind: str
    placeholder: str

    def prepare(self) -> None:
        """Connect if need be and make sure the table exists; DatabaseError if it cannot."""

    def insert(self, rows: Sequence[Row]) -> None: ...

    def reset(self) -> None:
        """Forget the connection after a failure: the next ``prepare`` opens a new one."""

    def count(self, exercise_id: str | None = None) -> int: ...

    def recent(self, limit: int) -> list[dict[str, object]]: ...

    def read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Run one query (``placeholder`` marks its arguments): column names and rows."""
        ...

    def close(self) -> None: ...


def check_url(url: str) -> str:
    """Return ``url`` if a backend here can open it; ValueError naming what is supported."""
    if url.startswith(SQLITE_PREFIX) and url != SQLITE_PREFIX:
        return url
    try:
        parts = urlsplit(url)
        named = parts.scheme in POSTGRES_SCHEMES and bool(parts.hostname or parts.path.strip("/"))
    except ValueError:  # an unparsable netloc (a bad IPv6 address)
        named = False
    else:
        try:
            parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
        except ValueError as exc:
            if named:  # the scheme is supported: the port is what is wrong
                raise ValueError(f"invalid database URL {redact(url)!r}: {exc}") from None
            named = False
    if named:
        from psycopg import ProgrammingError, conninfo

        try:
            conninfo.conninfo_to_dict(url)
        except ProgrammingError as exc:
            raise ValueError(f"invalid database URL {redact(url)!r}: {one_line(exc)}") from None
        return url
    raise ValueError(f"unsupported database URL {redact(url)!r}: use {SUPPORTED}")


# A password wherever libpq takes one: between the user and the host (up to the last "@", as a
# password with an unencoded "#" or "/" still reaches it there), or as a ``password=`` parameter
# of the URL's query or of a key=value connection string.
_URL_PASSWORD = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@?#]*:)(.*)@", re.DOTALL)
_KEY_PASSWORD = re.compile(r"(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s]*)")


def redact(url: str) -> str:
    """The URL (or connection string) with every password replaced by ``***``, for logs, error
    messages and the health report. Done on the text itself, not on a parse of it: a URL that
    does not parse still carries its password."""
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + "***@", url, count=1)
    return _KEY_PASSWORD.sub(lambda m: m.group(1) + "***", text)


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////abs/x.db`` -> ``/abs/x.db``."""
    if not url.startswith(SQLITE_PREFIX):
        raise ValueError(f"not a sqlite URL: {url!r}")
    return url[len(SQLITE_PREFIX) :]


def open_database(url: str, *, connect: bool = True) -> Database:
    """The database ``url`` names, connected and its table made unless ``connect`` is false."""
    check_url(url)
    database: Database
    if url.startswith(SQLITE_PREFIX):
        database = SqliteDatabase(sqlite_path(url))
    else:
        from app.postgres import PostgresDatabase

        database = PostgresDatabase(url, connect=connect)
    return database


def describe(url: str | None) -> dict[str, object]:
    """What ``judge doctor`` says of the history database: reachable, how many rows, or why not.

    A SQLite file that does not exist yet is not created here: the server creates it on start.
    """
    if url is None:
        return {"enabled": False, "url": None, "detail": "JUDGE_DATABASE_URL is empty"}
    shown = redact(url)
    if url.startswith(SQLITE_PREFIX):
        path = sqlite_path(url)
        if path != ":memory:" and not Path(path).exists():
            where = Path(path).resolve()
            return {"enabled": True, "url": shown, "detail": f"{where} will be created on start"}
    try:
        database = open_database(url)
        try:
            stored = database.count()
        finally:
            database.close()
    except (DatabaseError, ValueError) as exc:
        return {"enabled": False, "url": shown, "detail": f"unusable: {one_line(exc)}"}
    return {"enabled": True, "url": shown, "detail": f"reachable, {stored} submission(s) stored"}


class _Submissions:
    """The queries both backends share; a backend gives its placeholder and ``_read``."""

    placeholder = "?"

    @property
    def insert_statement(self) -> str:
        marks = ", ".join(self.placeholder for _ in COLUMNS)
        return (
            f"INSERT INTO submissions ({', '.join(COLUMNS)}) VALUES ({marks})"
            " ON CONFLICT (row_key) DO NOTHING"
        )

    def _read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        raise NotImplementedError

    def read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        return self._read(sql, args)

    def count(self, exercise_id: str | None = None) -> int:
        sql, args = "SELECT COUNT(*) FROM submissions", cast(tuple[str, ...], ())
        if exercise_id is not None:
            sql, args = f"{sql} WHERE exercise_id = {self.placeholder}", (exercise_id,)
        _, rows = self._read(sql, args)
        return int(rows[0][0])

    def recent(self, limit: int) -> list[dict[str, object]]:
        names, rows = self._read(
            f"SELECT * FROM submissions ORDER BY id DESC LIMIT {self.placeholder}", (limit,)
        )
        return [dict(zip(names, row, strict=True)) for row in rows]


class SqliteDatabase(_Submissions):
    """One SQLite connection (WAL for a file), shared under a lock, reopened after a failure.

    A path that cannot be opened at all is a lasting error; a write that fails later (a full
    disk, a locked file) is not: ``reset`` drops the connection and the next call reopens it,
    so whatever state SQLite was left in by the failure is not carried on.
    """

    kind = "sqlite"

    def __init__(self, path: str) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None  # (device, inode) of the file it has open
        try:
            if path != ":memory:":
                _check_sqlite_path(Path(path))
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            with self._lock:
                self._connection()
        except (OSError, DatabaseError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            message = f"cannot open SQLite database {path!r}: {why}"
            raise DatabaseError(message, lasting=True) from exc

    def _connection(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as exc:
            raise DatabaseError(f"SQLite: {exc}") from exc
        try:
            if self._path != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(SQLITE_SCHEMA)
            columns = {row[1] for row in db.execute("PRAGMA table_info(submissions)")}
            if "row_key" not in columns:
                db.execute(ROW_KEY_COLUMN)
            db.execute(ROW_KEY_INDEX)
            _add_sqlite_columns(db)
        except sqlite3.Error as exc:
            db.close()
            raise DatabaseError(f"SQLite: {exc}") from exc
        self._db = db
        self._file = self._identity()
        return db

    def _identity(self) -> tuple[int, int] | None:
        if self._path == ":memory:":
            return None
        try:
            found = os.stat(self._path)
        except OSError:
            return None
        return found.st_dev, found.st_ino

    def _same_file(self) -> sqlite3.Connection:
        """The connection, to the file that is at the path now (the caller holds the lock).

        An open SQLite file that is deleted keeps taking writes, into a file no one can open
        again: everything in it, and every grade after, would be gone at the next start. So a
        deleted file is written back where it was, whole (SQLite's backup, from the open
        connection), and a file put in its place (a restored copy) is the one used from then on.
        """
        db = self._connection()
        if self._file is None or self._identity() == self._file:
            return db
        if self._identity() is None:
            try:
                Path(self._path).parent.mkdir(parents=True, exist_ok=True)
                copy = sqlite3.connect(self._path)
                try:
                    db.backup(copy)
                finally:
                    copy.close()
            except (OSError, sqlite3.Error) as exc:
                raise DatabaseError(f"SQLite: the database file was deleted: {exc}") from exc
            log.warning(
                "submission history: %s was deleted while open; its rows were written back",
                self._path,
            )
        else:
            log.warning("submission history: %s was replaced; writing to the new file", self._path)
        self._drop()
        return self._connection()

    def prepare(self) -> None:
        with self._lock:
            self._connection()

    def reset(self) -> None:
        if self._path == ":memory:":
            return  # a new connection would be a new, empty database
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None

    def insert(self, rows: Sequence[Row]) -> None:
        with self._lock:
            db = self._same_file()
            try:
                db.execute("BEGIN")
                try:
                    db.executemany(self.insert_statement, rows)
                    db.execute("COMMIT")
                except BaseException:
                    # SQLite rolls back by itself on some errors (SQLITE_FULL): a ROLLBACK then
                    # would fail with "no transaction is active" and hide the real error.
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise DatabaseError(f"SQLite insert failed: {exc}") from exc

    def _read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._lock:
            try:
                cursor = self._same_file().execute(sql, args)
            except sqlite3.Error as exc:
                raise DatabaseError(f"SQLite query failed: {exc}") from exc
            return [d[0] for d in cursor.description], cursor.fetchall()

    def close(self) -> None:
        with self._lock:
            self._drop()


def _check_sqlite_path(path: Path) -> None:
    """Say what is wrong with a path SQLite cannot use, in the operator's terms: SQLite itself
    answers "unable to open database file", and mkdir "File exists"."""
    if path.is_dir():
        raise DatabaseError(f"{path} is a folder, not a database file")
    if path.exists() and not os.access(path, os.W_OK):
        # Read-only, or immutable (chattr +i, which root's access() obeys too): SQLite would
        # open it and refuse every write, a history that could never take a row.
        raise DatabaseError(f"{path} is not writable (read-only, or immutable)")
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise DatabaseError(f"{folder} is a file, not a folder")
            if not os.access(folder, os.W_OK) and not path.exists():
                raise DatabaseError(f"{folder} is not writable (or is on a read-only filesystem)")
            return


def _add_sqlite_columns(db: sqlite3.Connection) -> None:
    """Bring a table made before ADDED_COLUMNS up to date (SQLite has no ADD COLUMN IF NOT
    EXISTS), then make the indexes that use them."""
    present = {row[1] for row in db.execute("PRAGMA table_info(submissions)")}
    for name, kind in ADDED_COLUMNS:
        if name not in present:
            try:
                db.execute(f"ALTER TABLE submissions ADD COLUMN {name} {kind}")
            except sqlite3.OperationalError as exc:  # another judge on this file added it first
                if "duplicate column" not in str(exc):
                    raise
    for statement in ADDED_INDEXES:
        db.execute(statement)


def one_line(exc: BaseException) -> str:
    """An error's message on one line (libpq's span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__
