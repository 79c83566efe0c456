"""A judge server as a child process on loopback: pick a port, start it, wait until healthy,
always stop it. Loopback only, so the script can never load anything but this machine."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

START_TIMEOUT_S = 90.0
CHECKOUT = Path(__file__).resolve().parents[2]
STOP_TIMEOUT_S = 30.0


def loopback(host: str) -> str:
    """The host if it is a loopback address (or 'localhost'); anything else is refused."""
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise SystemExit(f"loadtest: {host!r} is not an IP address; loopback only") from None
    if not address.is_loopback:
        raise SystemExit(f"loadtest: refusing {host}: this script only targets loopback")
    return host


def free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def base_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


@contextlib.contextmanager
def running_server(
    command: list[str], url: str, env: dict[str, str], log_path: Path
) -> Iterator[dict[str, Any]]:
    """Start a server, wait for /api/health, yield its health (and ``"pid"``); always stop it."""
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        health = _wait_healthy(process, url, log_path)
        yield {**health, "pid": process.pid}
    finally:
        _stop(process)


def _wait_healthy(process: subprocess.Popen[bytes], url: str, log_path: Path) -> dict[str, Any]:
    deadline = time.monotonic() + START_TIMEOUT_S
    with httpx.Client(base_url=url, timeout=5) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                tail = log_path.read_text(errors="replace")[-2000:]
                raise SystemExit(f"loadtest: the server exited ({process.returncode}):\n{tail}")
            try:
                response = client.get("/api/health")
                if response.status_code == 200:
                    return dict(response.json())
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
    raise SystemExit(f"loadtest: the server was not healthy within {START_TIMEOUT_S:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
            return
        except subprocess.TimeoutExpired:
            pass
        # Still there: end the session we started for it (the server and its own children).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def scratch_environment(scratch: str, exercises: Path) -> dict[str, str]:
    """The environment of a server under test: its history in a scratch SQLite file (never
    the real one), the given exercises, and this checkout's bench/ importable."""
    env = dict(os.environ)
    env["JUDGE_DATABASE_URL"] = f"sqlite:///{scratch}/history.sqlite3"
    env["JUDGE_EXERCISES_DIR"] = str(exercises)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")]))
    return env
