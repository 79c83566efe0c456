"""Who a learner is without sign-up, and how many grades one learner may have at once.

A learner is a random id in the ``judge_learner`` cookie, given on the first page or grade that
comes without a valid one. The judge keeps only the id's SHA-256 (``Learner.hash``): the id
itself is never stored, logged or sent back except in that one Set-Cookie. One ASGI middleware
does both jobs, cookie and cap, so a refused grade costs no body read and no dependency.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "judge_learner"
ONE_YEAR_S = 365 * 24 * 3600
SCOPE_KEY = "judge.learner"  # where the middleware leaves the request's Learner
RETRY_AFTER_S = 1  # a grade takes milliseconds to a few seconds: one second is a fair pause
_ID = re.compile(r"[0-9a-f]{32}")  # 128 random bits, as secrets.token_hex(16) writes them
_GRADE = re.compile(r"/api/exercises/[^/]+/(?:submissions|runs)")
_PAGE = re.compile(r"/(?:exercises/[^/]+)?")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Learner:
    """The learner behind one request: the hash of their id, and whether their browser sent
    that id (False: the id was made for this request, or the request got none)."""

    hash: str
    known: bool


def learner_hash(learner_id: str) -> str:
    """What the history stores for a learner id: its SHA-256, in hex."""
    return hashlib.sha256(learner_id.encode("ascii")).hexdigest()


def pseudonym(stored_hash: str) -> str:
    """A short, stable name for a learner in the instructor's export, from the stored hash.

    Derived again (not a prefix of the stored value), so the export cannot be joined to the
    table by a reader who sees only one of them; 40 bits keep a class of thousands apart.
    """
    return "L-" + hashlib.sha256(b"pseudonym:" + stored_hash.encode("ascii")).hexdigest()[:10]


def cookie_id(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The valid learner id among the request's cookies, or None."""
    for name, value in headers:
        if name != b"cookie":
            continue
        for part in value.decode("latin-1").split(";"):
            key, _, candidate = part.strip().partition("=")
            if key == COOKIE and _ID.fullmatch(candidate):
                return candidate
    return None


def parse_networks(text: str) -> tuple[Network, ...]:
    """``"10.0.0.0/8, 127.0.0.1"`` -> networks; ValueError naming the item that is not one."""
    networks = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item!r} is not an IP address or network") from None
    return tuple(networks)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def _header(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope.get("headers", ()) if k == name]


def client_address(scope: Scope, trusted: tuple[Network, ...]) -> str:
    """The address a request came from: the peer, or, when the peer is a trusted proxy, the
    nearest address in X-Forwarded-For that is not one (a client can write anything to the
    left of what its proxies appended, so the walk goes right to left and stops there)."""
    peer = scope.get("client")
    current = str(peer[0]) if peer else "unknown"
    if not _trusted(current, trusted):
        return current
    hops = [hop.strip() for line in _header(scope, b"x-forwarded-for") for hop in line.split(",")]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            break  # garbage: the last address a trusted hop vouched for is all we know
        current = hop
        if not _trusted(hop, trusted):
            break
    return current


def served_over_https(scope: Scope, trusted: tuple[Network, ...]) -> bool:
    """HTTPS here, or at a trusted proxy in front that says so (X-Forwarded-Proto)."""
    if scope.get("scheme") == "https":
        return True
    peer = scope.get("client")
    if not peer or not _trusted(str(peer[0]), trusted):
        return False
    proto = _header(scope, b"x-forwarded-proto")
    return bool(proto) and proto[-1].split(",")[-1].strip().lower() == "https"


def set_cookie_header(learner_id: str, secure: bool) -> str:
    value = f"{COOKIE}={learner_id}; Max-Age={ONE_YEAR_S}; Path=/; HttpOnly; SameSite=Lax"
    return value + "; Secure" if secure else value


class LearnerGate:
    """Gives learners their cookie and holds each one to ``in_flight`` grades at once.

    The count is kept per learner id when the request carried one, else per client address; a
    grade beyond it is answered 429 at once, so it never waits in the judge's queue, where it
    would delay other learners' grades.
    """

    def __init__(
        self, app: ASGIApp, *, in_flight: int, trusted_proxies: tuple[Network, ...] = ()
    ) -> None:
        self.app = app
        self.in_flight = in_flight
        self.trusted = trusted_proxies
        self.running: dict[str, int] = {}  # only touched on the event loop: no lock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method, path = scope["method"], scope["path"]
        grade = method == "POST" and _GRADE.fullmatch(path) is not None
        page = method in ("GET", "HEAD") and _PAGE.fullmatch(path) is not None
        learner_id = cookie_id(scope.get("headers", ()))
        issued: str | None = None
        if learner_id is None and (grade or page):
            learner_id = issued = secrets.token_hex(16)
        if learner_id is not None:
            scope[SCOPE_KEY] = Learner(learner_hash(learner_id), known=issued is None)
        del learner_id  # from here on only its hash is in hand

        outgoing = send
        if issued is not None:
            secure = served_over_https(scope, self.trusted)
            outgoing = _with_cookie(send, set_cookie_header(issued, secure))

        if not grade:
            await self.app(scope, receive, outgoing)
            return
        learner: Learner = scope[SCOPE_KEY]
        key = (
            "learner " + learner.hash
            if learner.known
            else "address " + client_address(scope, self.trusted)
        )
        if self.running.get(key, 0) >= self.in_flight:
            await _too_many(self.in_flight, outgoing)
            return
        self.running[key] = self.running.get(key, 0) + 1
        try:
            await self.app(scope, receive, outgoing)
        finally:
            left = self.running[key] - 1
            if left:
                self.running[key] = left
            else:
                del self.running[key]


def _with_cookie(send: Send, cookie: str) -> Send:
    async def send_with_cookie(message: Message) -> None:
        if message["type"] == "http.response.start":
            MutableHeaders(scope=message).append("set-cookie", cookie)
        await send(message)

    return send_with_cookie


async def _too_many(limit: int, send: Send) -> None:
    grades = "grade" if limit == 1 else "grades"
    body = json.dumps(
        {
            "detail": f"You already have {limit} {grades} running; "
            f"try again in {RETRY_AFTER_S} s, once one has finished."
        },
        separators=(",", ":"),  # as every other answer of the API is written
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER_S).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
