"""The two load generators (``--client``): one pooled httpx AsyncClient, or a raw keep-alive
HTTP/1.1 connection per worker that costs a tenth of httpx's CPU per request."""

from __future__ import annotations

import asyncio
import contextlib
import secrets

import httpx

REQUEST_TIMEOUT_S = 60.0
JSON_HEADERS = {"content-type": "application/json"}


def learner_cookie() -> str:
    """A Cookie header value for one simulated learner: the judge holds each learner to a few
    grades at once (JUDGE_LEARNER_IN_FLIGHT) and counts cookie-less requests per address, so
    a load generator that stands for a class gives each of its workers an id of its own."""
    return f"judge_learner={secrets.token_hex(16)}"


def pooled_client(url: str, concurrency: int) -> httpx.AsyncClient:
    """``--client httpx``: one AsyncClient with a connection per request in flight."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    return httpx.AsyncClient(
        base_url=url, timeout=REQUEST_TIMEOUT_S, limits=limits, trust_env=False
    )


class RawHTTPError(Exception):
    """A reply the raw client does not handle (no Content-Length, a malformed status line)."""


class RawConnection:
    """A minimal HTTP/1.1 keep-alive client on one loopback connection, for ``--client raw``.

    It POSTs a JSON body to one path again and again and reads replies framed by
    Content-Length, which is all the judge's JSON replies need. It costs the load generator a
    tenth of httpx's CPU per request, so less of the machine goes to measuring.
    """

    def __init__(self, host: str, port: int, path: str, cookie: str | None = None) -> None:
        self.host, self.port = host, port
        self.head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Cookie: {cookie or learner_cookie()}\r\n"
        )
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def post(self, body: bytes) -> tuple[int, bytes]:
        request = (self.head + f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        try:
            return await asyncio.wait_for(self._exchange(request), REQUEST_TIMEOUT_S)
        except BaseException:
            await self.close()  # a half-read reply would poison the next exchange
            raise

    async def _exchange(self, request: bytes) -> tuple[int, bytes]:
        if self._writer is None:
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        assert self._reader is not None
        self._writer.write(request)
        await self._writer.drain()
        head = await self._reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        fields = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
        if "content-length" not in fields:
            raise RawHTTPError("reply without Content-Length")
        data = await self._reader.readexactly(int(fields["content-length"]))
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return status, data

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


RAW_ERRORS = (OSError, EOFError, ValueError, IndexError, asyncio.TimeoutError, RawHTTPError)
