"""Where the submission history lives: a SQLite file (the default) or a PostgreSQL server.

A database is named by a URL, as architecture.md says: ``sqlite:///PATH`` for one judge,
``postgresql://USER:PASSWORD@HOST:PORT/DB`` when replicas share their history. Both backends
store the same ``submissions`` table and answer the same calls (insert, count, recent,
read, close); ``app.history.History`` decides when to call them. Every call is made under the
backend's own lock, so one connection serves the writer thread and the readers.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import urlsplit, urlunsplit

if TYPE_CHECKING:
    import psycopg

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
    code_sha256 TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_by_exercise ON submissions (exercise_id, created_at);
"""
# Columns added after the table's first release: NULLable, added to an existing table at open
# (a row written, or spooled, before them keeps NULL there). learner_hash is the SHA-256 of the
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
        code_sha256 TEXT NOT NULL
    )
    """,
    "CREATE INDEX IF NOT EXISTS submissions_by_exercise ON submissions (exercise_id, created_at)",
    *(f"ALTER TABLE submissions ADD COLUMN IF NOT EXISTS {n} {t}" for n, t in ADDED_COLUMNS),
    *ADDED_INDEXES,
)
# Replicas starting together would race on CREATE TABLE IF NOT EXISTS (two creators, one gets
# a unique violation from the catalog); a transaction-scoped advisory lock serialises them.
SCHEMA_LOCK_KEY = 0x6A756467  # "judg"
CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 10_000


class DatabaseError(Exception):
    """The history database cannot be opened or used; the message is safe to log."""


class Database(Protocol):
    """What the history needs from a backend."""

    kind: str
    placeholder: str

    def insert(self, rows: Sequence[Row]) -> None: ...

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
    parts = urlsplit(url)
    if parts.scheme in POSTGRES_SCHEMES and (parts.hostname or parts.path.strip("/")):
        return url
    raise ValueError(f"unsupported database URL {redact(url)!r}: use {SUPPORTED}")


def redact(url: str) -> str:
    """The URL with its password replaced by ``***``, for logs and error messages."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        netloc = parts.netloc.rsplit("@", 1)[1]
        user = parts.username or ""
        return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))
    except ValueError:
        return "<unparsable database URL>"


def sqlite_path(url: str) -> str:
    """``sqlite:///var/x.db`` -> ``var/x.db``; ``sqlite:////abs/x.db`` -> ``/abs/x.db``."""
    if not url.startswith(SQLITE_PREFIX):
        raise ValueError(f"not a sqlite URL: {url!r}")
    return url[len(SQLITE_PREFIX) :]


def open_database(url: str) -> Database:
    """Connect to the database ``url`` names and make sure its table exists."""
    check_url(url)
    if url.startswith(SQLITE_PREFIX):
        return SqliteDatabase(sqlite_path(url))
    return PostgresDatabase(url)


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
        reason = " ".join(str(exc).split())  # libpq's messages span lines
        return {"enabled": False, "url": shown, "detail": f"unusable: {reason}"}
    return {"enabled": True, "url": shown, "detail": f"reachable, {stored} submission(s) stored"}


class _Submissions:
    """The queries both backends share; a backend gives its placeholder and ``_read``."""

    placeholder = "?"

    @property
    def insert_statement(self) -> str:
        marks = ", ".join(self.placeholder for _ in COLUMNS)
        return f"INSERT INTO submissions ({', '.join(COLUMNS)}) VALUES ({marks})"

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
    """One SQLite connection (WAL for a file), shared under a lock."""

    kind = "sqlite"

    def __init__(self, path: str) -> None:
        try:
            if path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            if path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SQLITE_SCHEMA)
            _add_sqlite_columns(self._db)
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open SQLite database {path!r}: {exc}") from exc
        self._lock = threading.Lock()

    def insert(self, rows: Sequence[Row]) -> None:
        with self._lock:
            try:
                self._db.execute("BEGIN")
                try:
                    self._db.executemany(self.insert_statement, rows)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise DatabaseError(f"SQLite insert failed: {exc}") from exc

    def _read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        with self._lock:
            cursor = self._db.execute(sql, args)
            return [d[0] for d in cursor.description], cursor.fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()


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


class PostgresDatabase(_Submissions):
    """One psycopg connection, reopened when the server went away between two calls.

    psycopg is imported only here, so a judge on SQLite never loads it. A lost connection is
    noticed by the next statement that uses it: reads and not-yet-committed inserts are then
    retried once on a new connection. A failure at COMMIT is not retried, since the rows may
    have landed.
    """

    kind = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - psycopg is a dependency of the judge
            raise DatabaseError("PostgreSQL needs the psycopg package") from exc
        self._psycopg = psycopg
        self._url = url
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        with self._lock:
            conn = self._connection()
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
                    for statement in POSTGRES_SCHEMA:
                        conn.execute(statement)
            except psycopg.Error as exc:
                self._drop()
                raise DatabaseError(f"cannot create the submissions table: {exc}") from exc

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        self._drop()
        try:
            self._conn = self._psycopg.connect(
                self._url,
                autocommit=True,
                connect_timeout=CONNECT_TIMEOUT_S,
                application_name="judge",
                options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
                # A server that vanishes without closing the connection (a dead host, a cut
                # network) is noticed in about half a minute instead of never.
                keepalives=1,
                keepalives_idle=10,
                keepalives_interval=5,
                keepalives_count=3,
                tcp_user_timeout=30_000,
            )
        except self._psycopg.Error as exc:
            # libpq's message names host and port, never the password.
            raise DatabaseError(f"cannot connect to {redact(self._url)}: {exc}") from exc
        return self._conn

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except self._psycopg.Error:
                pass
            self._conn = None

    def insert(self, rows: Sequence[Row]) -> None:
        psycopg = self._psycopg
        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                try:
                    conn.execute("BEGIN")
                    with conn.cursor() as cursor:
                        cursor.executemany(self.insert_statement, rows)
                except psycopg.OperationalError as exc:
                    self._drop()
                    if attempt == 2:
                        raise DatabaseError(f"PostgreSQL insert failed: {exc}") from exc
                    continue
                except psycopg.Error as exc:
                    self._rollback(conn)
                    raise DatabaseError(f"PostgreSQL insert failed: {exc}") from exc
                try:
                    conn.execute("COMMIT")
                except psycopg.Error as exc:
                    self._drop()
                    raise DatabaseError(f"PostgreSQL commit failed: {exc}") from exc
                return

    def _rollback(self, conn: psycopg.Connection[Any]) -> None:
        try:
            conn.execute("ROLLBACK")
        except self._psycopg.Error:
            self._drop()

    def _read(self, sql: str, args: Sequence[object]) -> tuple[list[str], list[tuple[Any, ...]]]:
        psycopg = self._psycopg
        with self._lock:
            retried = False
            while True:
                conn = self._connection()
                try:
                    cursor = conn.execute(sql, args)
                    names = [d.name for d in cursor.description or ()]
                    return names, cursor.fetchall()
                except psycopg.OperationalError as exc:
                    self._drop()
                    if retried:
                        raise DatabaseError(f"PostgreSQL query failed: {exc}") from exc
                    retried = True
                except psycopg.Error as exc:
                    raise DatabaseError(f"PostgreSQL query failed: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            self._drop()
