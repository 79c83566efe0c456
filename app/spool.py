"""The history's local spool: each row appended to a file before the judge answers its grade.

A row is appended (one ``write`` of one JSON line, to the page cache, no fsync) when it is
recorded, and the file is emptied once every row in it is in the database. So rows that were
answered 200 but not yet written survive the judge's process (a SIGKILL, an OOM kill, a
database that is down across a restart): the next judge to start in the same folder replays
them. Bounds: a host crash may lose what the kernel had not yet written back (a few seconds);
the file holds at most ``SPOOL_BYTES``, past which rows wait in memory only.

Each judge appends to a file of its own, locked (``flock``) for as long as it runs; a file whose
lock can be taken belongs to a judge that is gone, and is replayed by whoever takes it first:
a judge starting, or one running beside it (``app.history`` looks every ORPHAN_LOOK_S).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger("judge.storage")

SPOOL_BYTES = 256 * 1024 * 1024  # about a million rows
PATTERN = "rows-*.jsonl"


class SpoolError(Exception):
    """The spool folder cannot be used; the message is safe to log."""


class Spool:
    """This judge's spool file in ``folder``, plus the files judges that are gone left there."""

    def __init__(self, folder: Path, *, limit_bytes: int = SPOOL_BYTES) -> None:
        self.folder = folder
        self.limit_bytes = limit_bytes
        name = f"rows-{os.getpid()}-{secrets.token_hex(4)}.jsonl"
        self.path = folder / name
        try:
            self._fd = self._made()
        except OSError as exc:
            raise SpoolError(f"cannot use the history spool {folder}: {exc.strerror}") from exc
        self.size = 0
        self.rows = 0  # rows appended since the file was last emptied
        self.broken: str | None = None  # why appends stopped, until the file is emptied

    def _made(self) -> int:
        """A new, empty, locked file at ``path`` (its folder made too), open for reading and
        appending. Made under a name no judge looks for, locked, then named: another judge's
        look for orphans must never find it unlocked."""
        self.folder.mkdir(parents=True, exist_ok=True)
        making = self.folder / f".{self.path.name}"
        fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(making, self.path)
        except OSError:
            os.close(fd)
            raise
        return fd

    def _still_named(self) -> bool:
        """Whether the open file is still in the folder; written back if someone deleted it
        (or the folder): rows kept only in a file without a name would not outlive a kill.
        False when it cannot be written back."""
        if os.fstat(self._fd).st_nlink > 0:
            return True
        try:
            fd = self._made()
        except OSError as exc:
            self.broken = f"the spool file was deleted and cannot be made again: {exc.strerror}"
            return False
        offset = 0
        try:
            while chunk := os.pread(self._fd, 1 << 20, offset):
                offset += os.write(fd, chunk)
        except OSError as exc:
            self.broken = f"the spool file was deleted and cannot be written back: {exc.strerror}"
            os.close(fd)
            self.path.unlink(missing_ok=True)
            return False
        os.close(self._fd)
        self._fd = fd
        log.warning(
            "submission history: the spool %s was deleted while in use; written back (%d rows)",
            self.path,
            self.rows,
        )
        return True

    def append(self, row: dict[str, object]) -> bool:
        """Append one row; False if it could not be (disk full, spool full): it is then not kept."""
        if self.broken is not None or not self._still_named():
            return False
        line = (json.dumps(row, separators=(",", ":"), allow_nan=False) + "\n").encode()
        if self.size + len(line) > self.limit_bytes:
            self.broken = f"spool full ({self.limit_bytes} bytes)"
            return False
        try:
            written = os.write(self._fd, line)
        except OSError as exc:
            self.broken = exc.strerror or type(exc).__name__
            return False
        self.size += written
        if written != len(line):
            # A torn line (the disk filled mid-write) is skipped on replay; what follows it
            # would be glued to it, so appends stop until the file is emptied.
            self.broken = "short write (disk full?)"
            return False
        self.rows += 1
        return True

    def clear(self) -> None:
        """Empty the file: every row in it is in the database."""
        if self.size == 0 and self.broken is None:
            return
        try:
            os.ftruncate(self._fd, 0)
        except OSError as exc:  # pragma: no cover - truncating to 0 frees space, needs none
            log.warning("submission history: cannot empty the spool %s: %s", self.path, exc)
            return
        self.size = self.rows = 0
        self.broken = None

    def read(self, start: int = 0, end: int | None = None) -> Iterator[dict[str, object]]:
        """The rows of this judge's own file between two byte offsets (through the open file if
        its name was deleted and could not be made again)."""
        if self._fd >= 0 and not self._still_named():
            return read_rows(Path(f"/proc/self/fd/{self._fd}"), start, end)
        return read_rows(self.path, start, end)

    def close(self, *, keep: bool) -> None:
        """Release the file: removed if every row is written, else left for the next judge."""
        if self._fd < 0:
            return
        if not keep or self.size == 0:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # releases the lock
        self._fd = -1

    def orphans(self) -> list[Orphan]:
        """Files of judges that are gone, each locked for this judge until it is replayed."""
        taken = []
        for path in sorted(self.folder.glob(PATTERN)):
            if path == self.path:
                continue
            orphan = Orphan.take(path)
            if orphan is not None:
                taken.append(orphan)
        return taken


class Orphan:
    """A spool file left by a judge that is gone; locked by this one until replayed and removed."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        self.rows = sum(1 for _ in read_rows(path))

    @classmethod
    def take(cls, path: Path) -> Orphan | None:
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None  # removed meanwhile by the judge that replayed it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return None  # its judge still runs, or another is replaying it
        if not path.exists():  # replayed and removed between our open and our lock
            os.close(fd)
            return None
        return cls(path, fd)

    def read(self) -> Iterator[dict[str, object]]:
        return read_rows(self.path)

    def done(self) -> None:
        """Every row is in the database: remove the file, then release it."""
        self.path.unlink(missing_ok=True)
        self.release()

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def read_rows(path: Path, start: int = 0, end: int | None = None) -> Iterator[dict[str, object]]:
    """Each whole JSON object line of ``path`` from ``start`` to ``end``; torn lines skipped."""
    try:
        file = path.open("rb")
    except OSError:
        return
    with file:
        file.seek(start)
        left = None if end is None else end - start
        for line in file:
            if left is not None:
                left -= len(line)
                if left < 0:
                    return  # appended after ``end`` was taken
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row
