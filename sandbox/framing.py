"""How every message crosses a pipe or a mailbox: a 4-byte big-endian length, then the body.

A body is one UTF-8 JSON object, or (host <-> zygote, zygote -> child) a one-line JSON header,
a newline and opaque bytes the router passes on without parsing. What the messages say, and
how each is validated, is ``sandbox.protocol``'s; this module only cuts and joins frames, and
makes a frame from a confined child safe to parse (size, JSON, lone surrogates).
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any

HEADER = struct.Struct(">I")
MAX_FRAME = 8 * 1024 * 1024
# How much one os.read() of a pipe asks for. A 1 MiB request makes the allocator map and unmap
# a fresh buffer every time (docs/performance.md, "Figures behind the code's constants");
# larger frames take several reads.
READ_CHUNK = 1 << 16


class ProtocolError(ValueError):
    """A frame or message that does not follow the protocol."""


# One encoder for every frame: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def encode(message: dict[str, Any]) -> bytes:
    body = _ENCODER.encode(message).encode()
    return HEADER.pack(len(body)) + body


def encode_with_body(header: dict[str, Any], body: bytes = b"") -> bytes:
    """A frame whose payload is a one-line JSON header, a newline, then opaque bytes.

    Used between the host and the zygote so the zygote can route a job or a child's mailbox
    without parsing it: parsing allocates, and every page the zygote writes while children
    share its memory costs a copy-on-write fault.
    """
    head = _ENCODER.encode(header).encode()
    return HEADER.pack(len(head) + 1 + len(body)) + head + b"\n" + body


def split_body(payload: bytes) -> tuple[dict[str, Any], bytes]:
    head, newline, body = payload.partition(b"\n")
    if not newline:
        raise ProtocolError("frame has no header line")
    return json_object(head), body


# A lone surrogate reaches a string either as a JSON escape (\ud800, what json.dumps writes for
# a learner's chr(0xd800)) or as raw UTF-8-like bytes (ED A0..BF xx), which json.loads of bytes
# lets through. Either way the trusted side could not encode it again (a report, a database row).
_SURROGATE_HINT = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def json_object(raw: bytes) -> dict[str, Any]:
    """One frame's JSON object, every lone surrogate in it replaced by U+FFFD."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError) as exc:  # ValueError covers bad UTF-8 and bad JSON
        raise ProtocolError(f"frame is not JSON: {type(exc).__name__}") from None
    if not isinstance(message, dict):
        raise ProtocolError("frame is not a JSON object")
    if _SURROGATE_HINT.search(raw):  # rare; the common frame pays one scan of its bytes
        cleaned: dict[str, Any] = _without_surrogates(message)
        return cleaned
    return message


def _without_surrogates(value: Any) -> Any:
    """The message with every lone surrogate, in keys and values, replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


class FrameReader:
    """Accumulates bytes from a pipe and yields whole frames; refuses oversized frames."""

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame

    def feed_raw(self, data: bytes) -> list[bytes]:
        """Whole payloads, unparsed."""
        self._buffer += data
        payloads = []
        start = 0
        while len(self._buffer) - start >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer, start)
            if length > self._max_frame:
                raise ProtocolError(f"frame of {length} bytes exceeds {self._max_frame}")
            end = start + HEADER.size + length
            if len(self._buffer) < end:
                break
            payloads.append(bytes(self._buffer[start + HEADER.size : end]))
            start = end
        if start:
            # A fresh buffer for what is left, not ``del buffer[:start]``: that only moves the
            # bytearray's start and keeps the consumed frames (learners' sources, in the zygote)
            # in memory that every later fork inherits; freed, glibc wipes them.
            self._buffer = bytearray(self._buffer[start:])
        return payloads

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        """Whole payloads, each parsed as one JSON object."""
        return [json_object(payload) for payload in self.feed_raw(data)]
