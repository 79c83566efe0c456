"""Development mode: the catalog reloaded when an exercise folder changes (`serve --reload`).

An author edits a statement, a case or a solution and reloads the page: the judge polls the
exercise tree's file times and sizes, and when they change loads the whole catalog again in a
thread. A folder that no longer loads is logged in one line and the last good catalog stays
served, so a half-saved edit never takes the judge down. Never on in production: a reload drops
the random cases drawn ahead for the next Submits (they came from the old reference).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from fastapi import FastAPI

from app.catalog import Catalog, ExerciseError

log = logging.getLogger("judge")

INTERVAL_S = 0.5


def fingerprint(root: Path) -> tuple[tuple[str, int, int], ...]:
    """Every file under ``root`` with its modification time and size (caches left out)."""
    found = []
    for path in root.rglob("*"):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        try:
            stat = path.stat()
        except OSError:  # removed between the listing and the look
            continue
        found.append((str(path.relative_to(root)), stat.st_mtime_ns, stat.st_size))
    return tuple(sorted(found))


async def watch(app: FastAPI, root: Path, interval: float = INTERVAL_S) -> None:
    """Reload ``app.state.catalog`` from ``root`` whenever its files change, until cancelled."""
    seen = await asyncio.to_thread(fingerprint, root)
    while True:
        await asyncio.sleep(interval)
        now = await asyncio.to_thread(fingerprint, root)
        if now == seen:
            continue
        seen = now
        try:
            catalog = await asyncio.to_thread(Catalog.load, root)
        except ExerciseError as exc:
            log.error("exercises not reloaded, the last good ones stay: %s", exc)
            continue
        except Exception as exc:  # an author's half-written file must not end the watch
            log.error("exercises not reloaded (%s: %s)", type(exc).__name__, exc)
            continue
        app.state.catalog = catalog
        judge = getattr(app.state, "judge", None)
        if judge is not None:
            judge.forget_drawn_cases()
        log.info("exercises reloaded: %d exercise(s) from %s", len(catalog), root)
