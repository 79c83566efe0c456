"""Validators of one field of a wire message: each returns the field's value, typed, or raises
``ProtocolError`` naming the field (``sandbox.protocol`` builds its messages from them)."""

from __future__ import annotations

import math
from typing import Any

from sandbox.framing import ProtocolError
from sandbox.limits import Limits

MAX_DRAWN = 64


def drawn(raw: Any) -> tuple[float | None, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_DRAWN:
        raise ProtocolError(f"drawn must be a list of at most {MAX_DRAWN} numbers")
    for item in raw:
        if item is not None and (type(item) not in (int, float) or not math.isfinite(item)):
            raise ProtocolError("drawn must hold finite numbers or null")
    return tuple(None if item is None else float(item) for item in raw)


def text(value: Any, limit: int, name: str) -> str:
    if not isinstance(value, str):
        raise ProtocolError(f"{name} must be a string")
    return value[:limit]


def integer(value: Any, name: str) -> int:
    if type(value) is not int:
        raise ProtocolError(f"{name} must be an int")
    return value


def optional_integer(value: Any, name: str) -> int | None:
    return None if value is None else integer(value, name)


def boolean(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(f"{name} must be a bool")
    return value


def number(value: Any, name: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise ProtocolError(f"{name} must be a finite number")
    return float(value)


def optional_key(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ProtocolError("a key must be a string or null")
    return value


def trusted_keys(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ProtocolError("trusted_keys must map file names to keys")
    return dict(value)


def limits(value: Any) -> Limits:
    if not isinstance(value, dict):
        raise ProtocolError("limits must be an object")
    try:
        return Limits(**value)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"limits: {exc}") from None
