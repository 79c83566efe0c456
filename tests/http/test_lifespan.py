"""Start-up and shutdown: the catalog, the pool's lifetime, and the production refusal."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from asgi_client import InProcessClient
from http_fakes import ALL_LAYERS, FakeJudge

from app.config import Settings
from app.errors import UnsafeStart
from app.grading.judge import Judge
from app.lifespan import MANDATORY_LAYERS, missing_layers
from app.main import create_app


def test_missing_mandatory_layer_refuses_to_start(settings: Settings) -> None:
    judge = FakeJudge({**ALL_LAYERS, "seccomp": False, "landlock": False})
    with pytest.raises(UnsafeStart, match=r"not in force: seccomp\. .*--allow-unconfined"):
        with InProcessClient(create_app(settings, judge)):
            pass


def test_unreported_layer_counts_as_missing(settings: Settings) -> None:
    judge = FakeJudge({"rlimits": True, "seccomp": True, "policy": True, "uid_drop": True})
    with pytest.raises(UnsafeStart, match="clean_env"):
        with InProcessClient(create_app(settings, judge)):
            pass


def test_allow_unconfined_starts_anyway(
    make_client: Callable[..., InProcessClient], caplog: pytest.LogCaptureFixture
) -> None:
    judge = FakeJudge({**ALL_LAYERS, "policy": False})
    client = make_client(judge, allow_unconfined=True)
    body = client.get("/api/health").json()
    assert body["status"] == "ok" and body["sandbox"]["policy"] is False
    assert "WITHOUT mandatory confinement layers: policy" in caplog.text


def test_landlock_is_not_mandatory(make_client: Callable[..., InProcessClient]) -> None:
    client = make_client(FakeJudge({**ALL_LAYERS, "landlock": False}))
    assert client.get("/api/health").status_code == 200


def test_uid_drop_is_mandatory_only_for_root() -> None:
    layers = {**ALL_LAYERS, "uid_drop": False}
    assert missing_layers(layers, is_root=True) == ["uid_drop"]
    assert missing_layers(layers, is_root=False) == []
    assert set(MANDATORY_LAYERS) == {"rlimits", "clean_env", "seccomp", "policy"}


def test_owned_judge_is_created_off_loop_and_closed(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[FakeJudge, dict[str, int], int]] = []

    def create(**kwargs: int) -> FakeJudge:
        judge = FakeJudge()
        made.append((judge, kwargs, os.getpid()))
        return judge

    monkeypatch.setattr(Judge, "create", create, raising=False)
    with InProcessClient(create_app(settings)) as client:
        assert client.get("/api/health").status_code == 200
        ((judge, kwargs, _),) = made
        assert kwargs == {"workers": 2, "queue_size": 4, "slow_lane": None}
        assert not judge.closed
    assert judge.closed


def test_owned_judge_is_closed_when_start_is_refused(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = FakeJudge({**ALL_LAYERS, "rlimits": False})
    monkeypatch.setattr(Judge, "create", lambda **_: judge, raising=False)
    with pytest.raises(UnsafeStart):
        with InProcessClient(create_app(settings)):
            pass
    assert judge.closed


def test_injected_judge_is_left_to_its_owner(settings: Settings) -> None:
    judge = FakeJudge()
    with InProcessClient(create_app(settings, judge)) as client:
        assert client.get("/api/exercises").status_code == 200
    assert not judge.closed


def test_history_is_closed_on_shutdown(settings: Settings) -> None:
    app = create_app(settings, FakeJudge())
    with InProcessClient(app):
        history = app.state.history
        assert history is not None
    assert not history._writer.is_alive()


def test_history_can_be_disabled(make_client: Callable[..., InProcessClient]) -> None:
    client = make_client(database_url=None)
    assert (
        client.post("/api/exercises/add-numbers/submissions", json={"code": "x"}).status_code == 200
    )
    assert client.app.state.history is None
    assert client.get("/api/health").json()["history"] is None


def test_health_shows_the_history_database(client: InProcessClient) -> None:
    answer = client.post("/api/exercises/add-numbers/submissions", json={"code": "x"})
    assert answer.status_code == 200
    client.app.state.history.flush()
    health = client.get("/api/health").json()
    assert health["status"] == "ok"
    assert health["history"] == {
        "database": "sqlite",
        "state": "ok",
        "backlog": 0,
        "spooled": 0,
        "lost": 0,
        "last_error": None,
    }
    assert client.app.state.history.count("add-numbers") == 1
