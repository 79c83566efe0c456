"""The history's local spool: each row appended to a file before the judge answers its grade.

A row is appended (one ``write`` of one JSON line, to the page cache, no fsync) when it is
recorded, and the file is emptied once every row in it is in the database. So rows that were
answered 200 but not yet written survive the judge's process (a SIGKILL, an OOM kill, a
database that is down across a restart): the next judge to start in the same folder replays
them. Bounds: a host crash may lose what the kernel had not yet written back (a few seconds);
the file holds at most ``SPOOL_BYTES``, past which rows wait in memory only; a disk that is full
sends the rows to a fallback file in memory that outlives the process (``Spool.fallback``).

Each judge appends to a file of its own, locked (``flock``) for as long as it runs; a file whose
lock can be taken belongs to a judge that is gone, and is replayed by whoever takes it first:
a judge starting, or one running beside it (``app.history`` looks every ORPHAN_LOOK_S).
"""

from __future__ import annotations

import fcntl
import itertools
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
    """This judge's spool file in ``folder``, plus the files judges that are gone left there.

    ``fallback``: a folder on another filesystem (in memory: /dev/shm) for the rows this one
    cannot take (its disk full, as a SQLite file's spool beside it is when that disk fills):
    a file there outlives the judge's process (a kill, a restart), not the machine. Offsets
    run on across the two files: the fallback's begin where the first file's rows stopped.
    """

    def __init__(
        self, folder: Path, *, limit_bytes: int = SPOOL_BYTES, fallback: Path | None = None
    ) -> None:
        self.folder = folder
        self.fallback = fallback
        self.limit_bytes = limit_bytes
        name = f"rows-{os.getpid()}-{secrets.token_hex(4)}.jsonl"
        self.path = folder / name
        try:
            self._fd = _made(self.path)
        except OSError as exc:
            raise SpoolError(f"cannot use the history spool {folder}: {exc.strerror}") from exc
        self._spare: Path | None = None  # the fallback file, once rows went there
        self._spare_fd = -1
        self._spare_from = 0  # the offset at which the fallback file's rows begin
        self._spare_refused = False  # the fallback folder would not take a file
        self.size = 0
        self.rows = 0  # rows appended since the file was last emptied
        self.broken: str | None = None  # why appends stopped, until the file is emptied

    def _still_named(self) -> bool:
        """Whether the open file is still in the folder; written back if someone deleted it
        (or the folder): rows kept only in a file without a name would not outlive a kill.
        False when it cannot be written back."""
        if os.fstat(self._fd).st_nlink > 0:
            return True
        try:
            fd = _made(self.path)
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
        line = (json.dumps(row, separators=(",", ":"), allow_nan=False) + "\n").encode()
        if self.size + len(line) > self.limit_bytes:
            self.broken = f"spool full ({self.limit_bytes} bytes)"
            return False
        if self._spare is None:
            if self.broken is None and self._still_named() and self._write(self._fd, line):
                return True
            if not self._spare_opened():
                return False
        return self._write(self._spare_fd, line, spare=True)

    def _write(self, fd: int, line: bytes, *, spare: bool = False) -> bool:
        try:
            written = os.write(fd, line)
        except OSError as exc:
            if not spare:
                self.broken = exc.strerror or type(exc).__name__
            return False
        self.size += written
        if written != len(line):
            # A torn line (the disk filled mid-write) is skipped on replay; what follows it
            # would be glued to it, so appends to this file stop until it is emptied.
            if not spare:
                self.broken = "short write (disk full?)"
            return False
        self.rows += 1
        return True

    def _spare_opened(self) -> bool:
        """The fallback file, made (once) when the first file stops taking rows."""
        if self.fallback is None or self._spare_refused or self._spare_fd >= 0:
            return self._spare_fd >= 0
        spare = self.fallback / self.path.name
        try:
            self._spare_fd = _made(spare)
        except OSError as exc:
            log.warning("submission history: no fallback spool in %s: %s", self.fallback, exc)
            # Not tried again (the rows wait in memory); its folder is still looked in for
            # the files of judges that are gone.
            self._spare_refused = True
            return False
        self._spare, self._spare_from = spare, self.size
        log.warning(
            "submission history: the spool %s takes no more rows (%s); they go to %s (in "
            "memory: it outlives the judge's process, not the machine)",
            self.folder,
            self.broken,
            self.fallback,
        )
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
        self._drop_spare()
        self.size = self.rows = 0
        self.broken = None

    def _drop_spare(self) -> None:
        if self._spare is not None:
            self._spare.unlink(missing_ok=True)
            os.close(self._spare_fd)
            self._spare, self._spare_fd = None, -1

    def read(self, start: int = 0, end: int | None = None) -> Iterator[dict[str, object]]:
        """The rows of this judge's own files between two byte offsets (through the open file
        if its name was deleted and could not be made again)."""
        first = self.path
        if self._fd >= 0 and not self._still_named():
            first = Path(f"/proc/self/fd/{self._fd}")
        if self._spare is None:
            return read_rows(first, start, end)
        split = self._spare_from
        head = read_rows(first, start, split if end is None else min(end, split))
        tail_end = None if end is None else end - split
        tail = read_rows(self._spare, max(0, start - split), tail_end)
        return itertools.chain(head if start < split else iter(()), tail)

    def close(self, *, keep: bool) -> None:
        """Release the files: removed if every row is written, else left for the next judge."""
        if self._fd < 0:
            return
        if not keep or self.size == 0:
            self.path.unlink(missing_ok=True)
            self._drop_spare()
        elif self._spare_fd >= 0:
            os.close(self._spare_fd)  # releases its lock: the next judge replays it
            self._spare_fd = -1
        os.close(self._fd)  # releases the lock
        self._fd = -1

    def orphans(self) -> list[Orphan]:
        """Files of judges that are gone, each locked for this judge until it is replayed."""
        taken = []
        folders = [self.folder] + ([self.fallback] if self.fallback is not None else [])
        for path in sorted(p for folder in folders for p in folder.glob(PATTERN)):
            if path in (self.path, self._spare):
                continue
            orphan = Orphan.take(path)
            if orphan is not None:
                taken.append(orphan)
        return taken


def _made(path: Path) -> int:
    """A new, empty, locked file at ``path`` (its folder made too), open for reading and
    appending. Made under a name no judge looks for, locked, then named: another judge's look
    for orphans must never find it unlocked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    making = path.parent / f".{path.name}"
    fd = os.open(making, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.rename(making, path)
    except OSError:
        os.close(fd)
        raise
    return fd


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
