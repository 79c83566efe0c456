"""Security and caching headers on every response (a pure ASGI middleware: no body buffering)."""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# KaTeX sets inline styles, hence 'unsafe-inline' for styles only; scripts are same-origin only.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'self'; object-src 'none'"
)
# The /docs page starts the (vendored, same-origin) Swagger UI with an inline script, the one
# relaxation; the learner pages keep the strict policy.
DOCS_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
    "base-uri 'none'; object-src 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
IMMUTABLE = "public, max-age=31536000, immutable"
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect")


def cache_control(path: str) -> str:
    """Versioned vendor bundles are cached forever; API answers never; the rest revalidates."""
    if path.startswith("/static/vendor/"):
        return IMMUTABLE
    if path.startswith("/api/") or path == "/api":
        return "no-store"
    return "no-cache"


class SecurityHeaders:
    """Adds SECURITY_HEADERS and a Cache-Control to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if path in DOCS_PATHS:
                    headers["Content-Security-Policy"] = DOCS_CONTENT_SECURITY_POLICY
                headers["Cache-Control"] = cache_control(path)
            await send(message)

        await self.app(scope, receive, send_with_headers)
