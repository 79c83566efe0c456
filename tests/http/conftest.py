"""Fixtures of the HTTP tests: in-process apps with a fake judge, and a real uvicorn server."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_client import InProcessClient
from http_fakes import FakeJudge, write_exercise
from live_server import BASE_URL_VARIABLE, ExternalServer, RealServer, start_server
from postgres import MISSING, PostgresServer, server_binaries

from app.config import Settings
from app.main import create_app


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "real_judge: runs a real uvicorn server with the real Judge (app.grading.Judge.create); "
        "these fail, by design, until the real Judge exists",
    )
    config.addinivalue_line(
        "markers",
        f"any_server: also runs against a judge elsewhere, when {BASE_URL_VARIABLE} names it",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With an external judge, only the tests that can run against any server are kept."""
    if not os.environ.get(BASE_URL_VARIABLE):
        return
    here = Path(__file__).parent
    kept, dropped = [], []
    for item in items:
        local = item.path.is_relative_to(here) and item.get_closest_marker("any_server") is None
        (dropped if local else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    root = tmp_path / "exercises"
    write_exercise(root, "add-numbers", hints=3, related=("add-more",))
    write_exercise(root, "add-more", hints=4, related=("add-numbers",))
    return root


@pytest.fixture
def settings(exercises_dir: Path) -> Settings:
    return Settings.build(
        exercises_dir=exercises_dir, workers=2, queue_size=4, database_url="sqlite:///:memory:"
    )


@pytest.fixture
def make_client(settings: Settings) -> Iterator[Callable[..., InProcessClient]]:
    """make_client(judge, **setting_overrides): a started in-process app (lifespan included)."""
    with ExitStack() as stack:

        def make(judge: Any = None, **overrides: Any) -> InProcessClient:
            merged = Settings.build(**{**settings.model_dump(), **overrides})
            app = create_app(merged, judge if judge is not None else FakeJudge())
            client = InProcessClient(app)
            return stack.enter_context(client)

        yield make


@pytest.fixture
def fake_judge() -> FakeJudge:
    return FakeJudge()


@pytest.fixture
def client(make_client: Callable[..., InProcessClient], fake_judge: FakeJudge) -> InProcessClient:
    return make_client(fake_judge)


@pytest.fixture(scope="module")
def real_server(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[RealServer | ExternalServer]:
    external = os.environ.get(BASE_URL_VARIABLE)
    if external:
        yield ExternalServer(external.rstrip("/"))
        return
    server = start_server(tmp_path_factory.mktemp("real-server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def real_client(real_server: RealServer | ExternalServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=real_server.url, timeout=30) as client:
        yield client


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster on loopback, shared by the tests of one session."""
    bindir = server_binaries()
    if bindir is None:
        pytest.skip(MISSING)
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.destroy()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database on the test cluster, named after the test."""
    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:50].lower()
    return postgres_server.create_database(name)
