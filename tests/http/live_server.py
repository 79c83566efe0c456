"""A real judge server for tests: `app.server.serve` in a fresh interpreter under uvicorn."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
# A judge already running elsewhere (a container, a deployment): the tests marked any_server
# run against it instead of a server of their own, and the others are deselected.
BASE_URL_VARIABLE = "JUDGE_TEST_BASE_URL"


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


@dataclass
class ExternalServer:
    """A judge this test session did not start: only its address is known."""

    url: str


def start_server(tmp: Path, exercises: Path = REPO / "exercises", **env: str) -> RealServer:
    """Start `serve()` in a fresh interpreter and wait until /api/health answers."""
    port = free_port()
    log = tmp / f"server-{port}.log"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    environ.update(
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        JUDGE_EXERCISES_DIR=str(exercises),
        JUDGE_DATABASE_URL=f"sqlite:///{tmp / 'history.sqlite3'}",
    )
    environ.update(env)
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
