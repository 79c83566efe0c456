"""A synchronous in-process client: the app's lifespan and httpx's ASGITransport on a portal.

(Starlette's TestClient warns that its httpx support is deprecated; this does the same job.)
"""

from __future__ import annotations

from contextlib import ExitStack
from functools import partial
from typing import Any

import anyio
import anyio.abc
import httpx
from anyio.from_thread import start_blocking_portal
from fastapi import FastAPI


class InProcessClient:
    """``with InProcessClient(app) as client: client.get(...)``; start-up errors propagate."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self._stack = ExitStack()

    def __enter__(self) -> InProcessClient:
        portal = self._stack.enter_context(start_blocking_portal())
        self._portal = portal
        try:
            self._lifespan, _ = portal.start_task(self._run_lifespan)
            transport = httpx.ASGITransport(self.app, raise_app_exceptions=False)
            self._client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._portal.call(self._client.aclose)
            self._portal.call(self._stop.set)
            self._lifespan.result(timeout=30)
        finally:
            self._stack.close()

    async def _run_lifespan(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with self.app.router.lifespan_context(self.app):
            self._stop = anyio.Event()
            task_status.started()
            await self._stop.wait()

    def request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        return self._portal.call(partial(self._client.request, method, url, **kwargs))

    def get(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", url, **kwargs)
