"""Start-up and shutdown of one app: load the catalog, start the warm pool, open the history.

A production start refuses to serve when a mandatory confinement layer is off, unless the
operator said ``allow_unconfined``. Whatever was started here is stopped here, so shutdown (and
a reload, which is a shutdown) leaves no child process behind.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI

from app import catalog_reload
from app.catalog import Catalog
from app.config import Settings
from app.errors import UnsafeStart
from app.grading import Judge
from app.history import History

log = logging.getLogger("judge")

MANDATORY_LAYERS = ("rlimits", "clean_env", "seccomp", "policy")


def mandatory_layers(is_root: bool) -> tuple[str, ...]:
    """The layers a production start needs; dropping the uid only matters when we are root."""
    return (*MANDATORY_LAYERS, "uid_drop") if is_root else MANDATORY_LAYERS


def missing_layers(layers: Mapping[str, object], *, is_root: bool) -> list[str]:
    """Mandatory layers that are not reported as on (absent counts as off)."""
    return [name for name in mandatory_layers(is_root) if layers.get(name) is not True]


def check_confinement(health: Mapping[str, object], settings: Settings) -> None:
    """Raise UnsafeStart if a mandatory layer is off and the operator did not allow it."""
    layers = health.get("layers")
    missing = missing_layers(
        layers if isinstance(layers, Mapping) else {}, is_root=os.geteuid() == 0
    )
    if not missing:
        return
    names = ", ".join(missing)
    if settings.allow_unconfined:
        log.warning("serving WITHOUT mandatory confinement layers: %s (allow_unconfined)", names)
        return
    raise UnsafeStart(
        f"refusing to start: mandatory sandbox layer(s) not in force: {names}. "
        "Run `judge doctor` to see why, or start with --allow-unconfined "
        "(JUDGE_ALLOW_UNCONFINED=1) to serve anyway on a trusted machine."
    )


def lifespan_for(
    settings: Settings, judge: Judge | None = None
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan; an injected ``judge`` is used as is and left for its owner to close."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        catalog = await asyncio.to_thread(Catalog.load, settings.exercises_dir)
        active = judge
        if active is None:
            active = await asyncio.to_thread(
                Judge.create,
                workers=settings.workers,
                queue_size=settings.queue_size,
                slow_lane=settings.slow_lane,
            )
        history: History | None = None
        watcher: asyncio.Task[None] | None = None
        try:
            check_confinement(await asyncio.to_thread(active.health), settings)
            history = await asyncio.to_thread(
                History.from_url, settings.database_url, spool=settings.history_spool
            )
            app.state.catalog, app.state.judge, app.state.history = catalog, active, history
            log.info(
                "judge ready: %d exercise(s), %d worker(s), queue %d",
                len(catalog),
                settings.workers,
                settings.queue_size,
            )
            if settings.reload_exercises:
                watcher = asyncio.create_task(catalog_reload.watch(app, settings.exercises_dir))
                log.info(
                    "development mode: exercises reload when %s changes", settings.exercises_dir
                )
            yield
        finally:
            if watcher is not None:
                watcher.cancel()
            if history is not None:
                await asyncio.to_thread(history.close)
            if judge is None:
                await asyncio.to_thread(active.close)
            log.info("judge stopped")

    return lifespan
