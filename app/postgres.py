"""The PostgreSQL backend of the submission history, for replicas that share one database.

psycopg is imported only here, so a judge on SQLite never loads it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from app.databases import (
    POSTGRES_SCHEMA,
    DatabaseError,
    Row,
    RowsRefused,
    _Submissions,
    one_line,
    redact,
)

if TYPE_CHECKING:
    import psycopg

# Replicas starting together would race on CREATE TABLE IF NOT EXISTS (two creators, one gets
# a unique violation from the catalog); a transaction-scoped advisory lock serialises them.
SCHEMA_LOCK_KEY = 0x6A756467  # "judg"
CONNECT_TIMEOUT_S = 5
STATEMENT_TIMEOUT_MS = 10_000


class PostgresDatabase(_Submissions):
    """One psycopg connection, reopened when the server went away between two calls.

    psycopg is imported only here, so a judge on SQLite never loads it. A lost connection is
    noticed by the next statement that uses it: reads and inserts are then retried once on a
    new connection (an insert safely: its rows' keys make a second write of them a no-op). Each
    new connection makes sure the table exists, so a database recreated while the judge ran
    gets its table back.
    """

    kind = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str, *, connect: bool = True) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - psycopg is a dependency of the judge
            raise DatabaseError("PostgreSQL needs the psycopg package", lasting=True) from exc
        self._psycopg = psycopg
        self._url = url
        self._lock = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None
        if connect:
            self.prepare()

    def prepare(self) -> None:
        with self._lock:
            self._connection()

    def reset(self) -> None:
        with self._lock:
            self._drop()

    def _connection(self) -> psycopg.Connection[Any]:
        psycopg = self._psycopg
        if self._conn is not None and not self._conn.closed and not self._conn.broken:
            return self._conn
        self._drop()
        try:
            conn = psycopg.connect(
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
        except psycopg.Error as exc:
            # libpq's message names host and port, never the password.
            raise DatabaseError(
                f"cannot connect to {redact(self._url)}: {one_line(exc)}", lasting=_lasting(exc)
            ) from exc
        try:
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK_KEY,))
                for statement in POSTGRES_SCHEMA:
                    conn.execute(statement)
        except psycopg.Error as exc:
            conn.close()
            raise DatabaseError(
                f"cannot create the submissions table: {one_line(exc)}", lasting=_lasting(exc)
            ) from exc
        self._conn = conn
        return conn

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
                    with conn.transaction(), conn.cursor() as cursor:
                        cursor.executemany(self.insert_statement, rows)
                    return
                except psycopg.OperationalError as exc:
                    self._drop()
                    if attempt == 2:
                        raise DatabaseError(f"PostgreSQL insert failed: {one_line(exc)}") from exc
                except psycopg.DataError as exc:
                    # A row the server refuses for what it holds would be refused again on
                    # every retry and hold back every row behind it: the rows go in one by one.
                    self._one_by_one(conn, rows, exc)
                    return
                except psycopg.Error as exc:
                    self._drop()
                    raise DatabaseError(f"PostgreSQL insert failed: {one_line(exc)}") from exc

    def _one_by_one(self, conn: Any, rows: Sequence[Row], first: Exception) -> None:
        """Insert each row in a transaction of its own; raises RowsRefused naming how many the
        server refused for their content (the rest are stored), or what stopped it."""
        psycopg = self._psycopg
        refused = 0
        try:
            for row in rows:
                try:
                    with conn.transaction(), conn.cursor() as cursor:
                        cursor.execute(self.insert_statement, row)
                except psycopg.DataError:
                    refused += 1
        except psycopg.Error as exc:
            self._drop()
            raise DatabaseError(f"PostgreSQL insert failed: {one_line(exc)}") from exc
        if refused:
            raise RowsRefused(f"PostgreSQL refused a row: {one_line(first)}", refused)

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
                        raise DatabaseError(f"PostgreSQL query failed: {one_line(exc)}") from exc
                    retried = True
                except psycopg.Error as exc:
                    raise DatabaseError(f"PostgreSQL query failed: {one_line(exc)}") from exc

    def close(self) -> None:
        with self._lock:
            self._drop()


# SQLSTATE classes that waiting does not cure: a refused login (28), a database that does not
# exist (3D), a malformed connection string (psycopg raises ProgrammingError for it).
_LASTING_SQLSTATE = ("28", "3D")
_LASTING_WORDS = (
    "password authentication failed",
    "does not exist",
    "no pg_hba.conf entry",
    "invalid ",
)


def _lasting(exc: BaseException) -> bool:
    sqlstate = getattr(exc, "sqlstate", None)
    if isinstance(sqlstate, str) and sqlstate.startswith(_LASTING_SQLSTATE):
        return True
    if type(exc).__name__ == "ProgrammingError":
        return True
    text = str(exc)
    return any(words in text for words in _LASTING_WORDS)
