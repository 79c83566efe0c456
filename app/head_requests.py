"""HEAD answered as GET without its body (RFC 9110: the same headers a GET would get).

FastAPI routes a GET route for GET only, so a monitor or load balancer probing with HEAD (a
common default for health checks) got a 405. A pure ASGI middleware: the app sees a GET, the
client gets its status and headers, Content-Length included, and no body.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        finished = False

        async def send_headers_only(message: Message) -> None:
            nonlocal finished
            if message["type"] != "http.response.body":
                await send(message)
            elif not finished and not message.get("more_body", False):
                finished = True  # the last body message: end the response, empty
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, send_headers_only)
