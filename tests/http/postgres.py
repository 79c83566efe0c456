"""A throwaway PostgreSQL server for tests: its own cluster in a temporary folder, on loopback.

Debian's ``postgresql`` package provides the binaries (``.ci/run`` installs it); nothing of the
machine's own clusters is used or touched. PostgreSQL refuses to run as root, so when the tests
run as root the cluster belongs to the ``postgres`` account the package creates (or ``nobody``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from live_server import free_port

MISSING = (
    "PostgreSQL server binaries (initdb, postgres) not found: install Debian's postgresql "
    "package (.ci/run does)"
)


def server_binaries() -> Path | None:
    """The folder holding initdb and postgres, newest version first; None if not installed."""
    found = shutil.which("initdb")
    if found is not None and (Path(found).resolve().parent / "postgres").exists():
        return Path(found).resolve().parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
        reverse=True,
    )
    return versions[0].parent if versions else None


@dataclass
class PostgresServer:
    """One cluster; ``url(db)`` names a database on it, ``create_database`` makes a fresh one."""

    bindir: Path
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="judge-pg-")))
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    _user: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam("postgres")  # created by Debian's package
            except KeyError:
                account = pwd.getpwnam("nobody")
            os.chown(self.root, account.pw_uid, account.pw_gid)
            self._user = {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}
        self._run(
            [
                str(self.bindir / "initdb"),
                "--pgdata",
                str(self.root / "data"),
                "--username",
                "postgres",
                "--auth",
                "trust",
                "--encoding",
                "UTF8",
                "--no-sync",
            ]
        )

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, cwd=self.root, **self._user)  # type: ignore[call-overload]
        if done.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {done.stderr.decode(errors='replace')}")

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        secret = f":{password}" if password is not None else ""
        return f"postgresql://postgres{secret}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        log = open(self.root / "server.log", "ab")  # noqa: SIM115 - kept open by the server
        self.proc = subprocess.Popen(  # type: ignore[call-overload]
            [
                str(self.bindir / "postgres"),
                "-D",
                str(self.root / "data"),
                "-p",
                str(self.port),
                "-k",
                str(self.root),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
            ],
            cwd=self.root,
            stdout=log,
            stderr=log,
            **self._user,
        )
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return
            except psycopg.OperationalError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"PostgreSQL did not start:\n{self.log_tail()}") from None
                time.sleep(0.1)

    def stop(self) -> None:
        """Fast shutdown: open sessions are cut, as when a database server restarts."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def sql(self, database: str, statement: str) -> list[tuple[object, ...]]:
        """Run one statement on ``database`` from outside the judge; rows if it returns any."""
        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(statement)
            return cursor.fetchall() if cursor.description else []

    def log_tail(self) -> str:
        path = self.root / "server.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
