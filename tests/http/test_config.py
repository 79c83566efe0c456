"""Settings: environment parsing, defaults, and unsafe values refused at start-up."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.catalog import EXERCISES_DIR
from app.config import ConfigError, Settings


def test_defaults() -> None:
    settings = Settings.from_env({})
    assert settings.host == "127.0.0.1"
    assert settings.port == 8000
    assert settings.exercises_dir == EXERCISES_DIR.resolve()
    assert settings.workers == (os.cpu_count() or 1)
    assert settings.queue_size == 64
    assert settings.max_code_bytes == 64 * 1024
    assert settings.allow_unconfined is False
    assert settings.database_url == "sqlite:///var/judge.sqlite3"


def test_environment_is_parsed(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "JUDGE_HOST": "0.0.0.0",
            "JUDGE_PORT": "9000",
            "JUDGE_EXERCISES_DIR": str(tmp_path),
            "JUDGE_WORKERS": "3",
            "JUDGE_QUEUE_SIZE": "5",
            "JUDGE_MAX_CODE_BYTES": "1000",
            "JUDGE_ALLOW_UNCONFINED": "true",
            "JUDGE_DATABASE_URL": "",
            "UNRELATED": "ignored",
        }
    )
    assert (settings.host, settings.port, settings.workers, settings.queue_size) == (
        "0.0.0.0",
        9000,
        3,
        5,
    )
    assert settings.exercises_dir == tmp_path.resolve()
    assert settings.max_code_bytes == 1000
    assert settings.allow_unconfined is True
    assert settings.database_url is None


def test_overrides_win_over_the_environment() -> None:
    settings = Settings.from_env({"JUDGE_PORT": "9000", "JUDGE_WORKERS": "3"}, port=9100)
    assert settings.port == 9100 and settings.workers == 3


@pytest.mark.parametrize(
    ("env", "name"),
    [
        ({"JUDGE_WORKERS": "0"}, "JUDGE_WORKERS"),
        ({"JUDGE_WORKERS": "-2"}, "JUDGE_WORKERS"),
        ({"JUDGE_QUEUE_SIZE": "0"}, "JUDGE_QUEUE_SIZE"),
        ({"JUDGE_PORT": "70000"}, "JUDGE_PORT"),
        ({"JUDGE_PORT": "http"}, "JUDGE_PORT"),
        ({"JUDGE_HOST": ""}, "JUDGE_HOST"),
        ({"JUDGE_HOST": "local host"}, "JUDGE_HOST"),
        ({"JUDGE_MAX_CODE_BYTES": "0"}, "JUDGE_MAX_CODE_BYTES"),
        ({"JUDGE_ALLOW_UNCONFINED": "maybe"}, "JUDGE_ALLOW_UNCONFINED"),
        ({"JUDGE_EXERCISES_DIR": "/no/such/dir"}, "JUDGE_EXERCISES_DIR"),
        ({"JUDGE_DATABASE_URL": "mysql://db/judge"}, "JUDGE_DATABASE_URL"),
        ({"JUDGE_DATABASE_URL": "sqlite:///"}, "JUDGE_DATABASE_URL"),
        ({"JUDGE_DATABASE_URL": "postgresql://"}, "JUDGE_DATABASE_URL"),
    ],
)
def test_unsafe_environment_is_refused(env: dict[str, str], name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env(env)


@pytest.mark.parametrize("port", [99999, -1])
def test_a_refused_override_is_named_as_it_was_given(port: int) -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({}, given_as={"port": "--port"}, port=port)
    assert (
        str(refused.value) == f"invalid settings: --port: must be between 1 and 65535 (got {port})"
    )


def test_a_refused_environment_variable_is_still_named_beside_a_valid_override() -> None:
    with pytest.raises(ConfigError, match="^invalid settings: JUDGE_PORT: "):
        Settings.from_env({"JUDGE_PORT": "70000"}, given_as={"port": "--port"}, port=8000)


@pytest.mark.parametrize(
    "url",
    [
        "sqlite:///var/judge.sqlite3",
        "sqlite:///:memory:",
        "postgresql://judge:secret@db.internal:5432/judge",
        "postgres://judge@db/judge",
        "postgresql:///judge?host=/run/postgresql",
    ],
)
def test_supported_database_urls_are_accepted(url: str) -> None:
    assert Settings.from_env({"JUDGE_DATABASE_URL": url}).database_url == url


def test_a_refused_database_url_does_not_echo_its_password() -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"JUDGE_DATABASE_URL": "mysql://judge:hunter2@db/judge"})
    message = str(refused.value)
    assert "hunter2" not in message
    assert "JUDGE_DATABASE_URL" in message and "postgresql://" in message


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://judge@127.0.0.1:54399/judge?password=hunter2",  # libpq takes it there
        "postgresql://judge@db/judge?sslmode=bogus&password=hunter2&x=1",
        "host=db user=judge password=hunter2 dbname=judge",  # a key=value string
        "host=db password='hunter2 with spaces' dbname=judge",
        "postgresql://judge:hun#ter2@db/judge",  # unencoded: no longer parses as a URL
        "postgresql://judge:hun/ter2@db/judge",
        "postgresql://judge:hun@ter2@db/judge",
    ],
)
def test_a_password_is_hidden_wherever_the_url_puts_it(url: str) -> None:
    from app.databases import redact

    assert "hunter2" not in redact(url) and "ter2" not in redact(url)
    assert "***" in redact(url)
    try:
        Settings.from_env({"JUDGE_DATABASE_URL": url})
    except ConfigError as refused:
        assert "ter2" not in str(refused)


@pytest.mark.parametrize(
    "values",
    [{"host": 127}, {"port": "8000"}, {"workers": True}, {"queue_size": 1.5}, {"colour": "x"}],
)
def test_wrong_types_are_refused_in_code(values: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Settings.build(**values)


def test_settings_are_immutable() -> None:
    settings = Settings.from_env({})
    with pytest.raises(ValueError):
        settings.port = 1  # type: ignore[misc]


def test_body_cap_admits_the_worst_escaping_of_the_code_cap() -> None:
    settings = Settings.build(max_code_bytes=1000)
    assert settings.max_body_bytes >= 6 * 1000 + len('{"code": ""}')
