"""What `judge serve` checks before it listens: each problem is one line and a non-zero exit.

An unusable setting (a JUDGE_* value, a database URL, a spool folder), a broken exercise folder,
a mandatory sandbox layer off, a reference solution that fails its own examples, or an address
it cannot listen on stops the start here, before uvicorn runs (whose failed start-up prints a
traceback). A database that is
merely not up yet is not a reason to stop: the history retries it while the judge serves.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from app.catalog import Catalog
from app.config import Settings
from app.databases import DatabaseError, one_line, open_database
from app.errors import UnsafeStart
from app.grading import Judge
from app.history import spool_folder
from app.lifespan import check_confinement
from app.schemas import Mode, Verdict


class StartupError(Exception):
    """Why the judge will not start, in one line an operator can act on."""


def load_catalog(settings: Settings) -> Catalog:
    try:
        catalog = Catalog.load(settings.exercises_dir)
    except (ValueError, OSError) as exc:  # ExerciseError is a ValueError
        raise StartupError(f"broken exercise folder: {one_line(exc)}") from None
    if not len(catalog):  # a judge of nothing: most likely the wrong folder
        raise StartupError(f"no exercise folders in {settings.exercises_dir}")
    return catalog


def check_history(settings: Settings) -> None:
    """The database URL and the spool folder can be used (a server not up yet can be)."""
    url = settings.database_url
    if url is None:
        return
    try:
        database = open_database(url, connect=False)
        try:
            database.prepare()
        finally:
            database.close()
    except ValueError as exc:
        raise StartupError(f"JUDGE_DATABASE_URL: {one_line(exc)}") from None
    except DatabaseError as exc:
        if exc.lasting:
            raise StartupError(f"submission history: {one_line(exc)}") from None
        # Not up yet: the history says so once it starts, and retries.
    folder = spool_folder(url, settings.history_spool)
    if folder is not None:
        _check_writable(folder)


def _check_writable(folder: Path) -> None:
    probe = folder / f".probe-{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        # mkdir says "File exists" of a path that is a file, or runs through one.
        blocker = next(
            (p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), None
        )
        why = f"{blocker} is a file, not a folder" if blocker is not None else exc.strerror
        raise StartupError(
            f"history spool folder {folder} is not writable ({why}): set "
            "JUDGE_HISTORY_SPOOL to a writable folder, or to an empty value for none"
        ) from None


def check_references(judge: Judge, catalog: Catalog) -> None:
    """Each exercise's reference solution passes its own examples in the real sandbox.

    Otherwise every learner's correct answer would be graded against a broken reference and
    stored as the learner's failure.
    """
    for exercise in catalog:
        report = judge.grade(exercise, exercise.solution_code, Mode.run)
        if report.verdict is Verdict.accepted:
            continue
        failed = next((t for t in report.tests if t.status != "pass"), None)
        why = (failed.message if failed is not None else None) or report.message or ""
        where = f" (case {failed.name!r})" if failed is not None else ""
        raise StartupError(
            f"exercise {exercise.id}: its reference solution.py fails its own examples: "
            f"{report.verdict.value}{where}: {one_line(Exception(why))}"
        )


def check_listening(host: str, port: int) -> None:
    """Bind every address uvicorn will listen on, and let go: a port in use or a host that is
    not this machine's is one line here, where uvicorn would log its start-up first and its
    error after. (Last of the checks, so that it runs just before uvicorn binds them again.)"""
    shown = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    try:
        addresses = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except (socket.gaierror, UnicodeError) as exc:
        raise StartupError(f"cannot listen on {shown}: {_reason(exc)}") from None
    for family, kind, proto, _, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
                probe.bind(address)
        except OSError as exc:
            raise StartupError(f"cannot listen on {shown}: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return text[:1].lower() + text[1:]


def prepare(settings: Settings) -> Judge:
    """Every check that can stop the start; the warm judge to serve with, if they pass."""
    catalog = load_catalog(settings)
    check_history(settings)
    try:
        judge = Judge.create(
            workers=settings.workers, queue_size=settings.queue_size, slow_lane=settings.slow_lane
        )
    except (OSError, RuntimeError) as exc:
        raise StartupError(f"cannot start the sandbox: {one_line(exc)}") from None
    try:
        check_confinement(judge.health(), settings)
        check_references(judge, catalog)
        check_listening(settings.host, settings.port)
    except UnsafeStart as exc:
        judge.close()
        raise StartupError(one_line(exc)) from None
    except StartupError:
        judge.close()
        raise
    except BaseException:
        judge.close()
        raise
    return judge
