"""Fixtures of the HTTP tests: in-process apps with a fake judge, and a real uvicorn server."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_client import InProcessClient
from http_fakes import FakeJudge, write_exercise

from app.config import Settings
from app.main import create_app

REPO = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "real_judge: runs a real uvicorn server with the real Judge (app.judge.Judge.create); "
        "these fail, by design, until the real Judge exists",
    )


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


# --- a real server: uvicorn in a subprocess, through app.server.serve, with the real Judge ---


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class RealServer:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"server ignored signal {sig}:\n{self.log_tail()}") from None


def start_server(tmp: Path, exercises: Path = REPO / "exercises", **env: str) -> RealServer:
    """Start `serve()` in a fresh interpreter and wait until /api/health answers."""
    port = free_port()
    log = tmp / f"server-{port}.log"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    environ.update(
        PYTHONPATH=str(REPO),
        JUDGE_EXERCISES_DIR=str(exercises),
        JUDGE_DATABASE_URL=f"sqlite:///{tmp / 'history.sqlite3'}",
        **env,
    )
    code = f"from app.server import serve; serve('127.0.0.1', {port})"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-c", code], cwd=tmp, env=environ, stdout=out, stderr=out
        )
    server = RealServer(proc, f"http://127.0.0.1:{port}", log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited with {proc.returncode}:\n{server.log_tail()}")
        try:
            if httpx.get(server.url + "/api/health", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    server.stop(signal.SIGKILL)
    raise AssertionError(f"server did not answer within 60 s:\n{server.log_tail()}")


@pytest.fixture(scope="module")
def real_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    server = start_server(tmp_path_factory.mktemp("real-server"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def real_client(real_server: RealServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=real_server.url, timeout=30) as client:
        yield client
