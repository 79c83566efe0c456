"""One typed Settings object, read from ``JUDGE_*`` environment variables and validated at start-up.

Unsafe or nonsensical values (a non-positive worker count, an empty queue, a port out of range,
a host that is not a string, an unsupported database) stop the service before it serves anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from app.catalog import EXERCISES_DIR
from app.databases import check_url, redact
from app.learners import Network, parse_networks

ENV_PREFIX = "JUDGE_"
DEFAULT_DATABASE_URL = "sqlite:///var/judge.sqlite3"
MIN_TOKEN_CHARS = 16


class ConfigError(ValueError):
    """A setting that is missing, malformed or unsafe; the message names the variable."""


def _default_workers() -> int:
    return os.cpu_count() or 1


class Settings(BaseModel):
    """Everything the service can be configured with; immutable once validated."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    host: str = Field("127.0.0.1", min_length=1, description="interface to listen on")
    port: int = Field(8000, ge=1, le=65535)
    exercises_dir: Path = Field(EXERCISES_DIR, strict=False)
    workers: int = Field(
        default_factory=_default_workers,
        ge=1,
        le=1024,
        description="concurrent confined children (one per core by default)",
    )
    queue_size: int = Field(
        64, ge=1, le=100_000, description="submissions waiting for a worker before 503"
    )
    slow_lane: int | None = Field(
        None,
        ge=0,
        le=100_000,
        description="children parked at the lowest CPU priority once they run long (demoted "
        "out of the fast slots); default four per worker",
    )
    max_code_bytes: int = Field(
        64 * 1024, ge=1, le=16 * 1024 * 1024, description="largest accepted source, in UTF-8 bytes"
    )
    allow_unconfined: bool = Field(False, description="start even if a mandatory layer is off")
    reload_exercises: bool = Field(
        False, description="development: reload the exercises when their folder changes"
    )
    database_url: str | None = Field(
        DEFAULT_DATABASE_URL,
        description="submission history: sqlite:///PATH or postgresql://...; None disables it",
    )
    history_spool: str | None = Field(
        None,
        description="folder where rows wait until the database takes them (and across a "
        "restart); default: beside the SQLite file, or var/history-spool; empty: no spool",
    )

    learner_in_flight: int = Field(
        2, ge=1, le=1000, description="grades one learner (or one address) may have at once"
    )
    trusted_proxies: str = Field(
        "",
        description="comma-separated addresses or networks of proxies whose X-Forwarded-For "
        "(and X-Forwarded-Proto) the judge believes",
    )
    instructor_token: str | None = Field(
        None, description="bearer token of the instructor's view; unset: the view is off (404)"
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_parse(cls, value: str) -> str:
        parse_networks(value)
        return value

    @field_validator("instructor_token")
    @classmethod
    def _token_strong(cls, value: str | None) -> str | None:
        if value is None or value == "":
            return None
        if len(value) < MIN_TOKEN_CHARS or any(c.isspace() or not c.isprintable() for c in value):
            raise ValueError(
                f"must be at least {MIN_TOKEN_CHARS} printable characters without spaces "
                "(e.g. `openssl rand -hex 24`)"
            )
        return value

    @property
    def trusted_networks(self) -> tuple[Network, ...]:
        """``trusted_proxies`` as networks."""
        return parse_networks(self.trusted_proxies)

    @field_validator("host")
    @classmethod
    def _host_is_plain(cls, value: str) -> str:
        if value != value.strip() or any(c.isspace() for c in value):
            raise ValueError("must not contain whitespace")
        return value

    @field_validator("exercises_dir")
    @classmethod
    def _exercises_dir_exists(cls, value: Path) -> Path:
        if not value.is_dir():
            raise ValueError(f"{value} is not a directory")
        return value.resolve()

    @field_validator("database_url")
    @classmethod
    def _database_supported(cls, value: str | None) -> str | None:
        if value is None or value.strip() == "":
            return None
        return check_url(value)

    @property
    def max_body_bytes(self) -> int:
        """Cap on a submission's raw JSON body: the worst-case JSON escaping of the code cap.

        One source byte costs at most six JSON bytes (a control character as ``\\u00XX``), so no
        accepted submission is cut by this cap, and anything beyond it is refused unread.
        """
        return 6 * self.max_code_bytes + 4096

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        /,
        *,
        given_as: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> Settings:
        """Settings from ``JUDGE_<NAME>`` variables, then explicit overrides; raises ConfigError.

        ``given_as`` names the overrides as the user gave them (``{"port": "--port"}``), so that
        a refused one is not blamed on an environment variable nobody set.
        """
        environ = os.environ if environ is None else environ
        raw: dict[str, str] = {}
        for name in cls.model_fields:
            value = environ.get(ENV_PREFIX + name.upper())
            if value is not None:
                raw[name] = value
        try:
            from_strings = cls.model_validate_strings(raw)
            if not overrides:
                return from_strings
            merged = {**from_strings.model_dump(exclude_unset=True), **overrides}
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from None
        try:
            return cls.model_validate(merged)
        except ValidationError as exc:  # the environment passed alone: an override is refused
            raise ConfigError(_describe(exc, given_as or {})) from None

    @classmethod
    def build(cls, **values: Any) -> Settings:
        """Like the constructor, but raises ConfigError with a readable message."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigError(_describe(exc)) from None


def _describe(exc: ValidationError, given_as: Mapping[str, str] | None = None) -> str:
    problems = []
    for error in exc.errors():
        name = ".".join(str(part) for part in error["loc"]) or "settings"
        given = error["input"]
        if name == "database_url" and isinstance(given, str):
            given = redact(given)  # a database URL may carry a password
        if name == "instructor_token":
            given = "***"  # a secret, even when refused
        flag = (given_as or {}).get(name)
        if flag is None:
            message = str(error["msg"]).removeprefix("Value error, ")
            # A message that quotes the value already (the database URL's) is not followed by it.
            got = "" if repr(given) in message else f" (got {given!r})"
            problems.append(f"{ENV_PREFIX}{name.upper()}: {message}{got}")
        else:
            shown = str(given) if isinstance(given, Path) else repr(given)
            problems.append(f"{flag}: {_flag_problem(name, error)} (got {shown})")
    return "invalid settings: " + "; ".join(problems)


def _flag_problem(name: str, error: Any) -> str:
    """A refused command-line value in the command line's words: its whole range when it is
    out of it (pydantic names only the bound it crossed), no "Value error, " prefix."""
    if error["type"] in ("greater_than_equal", "less_than_equal"):
        bounds = {
            key: getattr(rule, key)
            for rule in Settings.model_fields[name].metadata
            for key in ("ge", "le")
            if hasattr(rule, key)
        }
        if set(bounds) == {"ge", "le"}:
            return f"must be between {bounds['ge']} and {bounds['le']}"
    return str(error["msg"]).removeprefix("Value error, ")
