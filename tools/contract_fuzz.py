"""schemathesis against a real judge: ``judge serve`` on a free loopback port, ``st run`` with
every check over its OpenAPI document, the server stopped afterwards.

    .venv/bin/python tools/contract_fuzz.py            # or: make contract-fuzz
    .venv/bin/python tools/contract_fuzz.py -n 200     # more examples per operation

The history goes to a temporary SQLite file, never the real one. The exit status is
schemathesis's (0: no failure). ``schemathesis.toml`` at the top of the repository says what the
one scoped allowance is, and why.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_health(url: str, server: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"judge serve exited with {server.returncode}")
        try:
            with urllib.request.urlopen(url + "/api/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"judge serve did not answer {url}/api/health in {seconds:.0f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--max-examples", type=int, default=50, help="per operation")
    options = parser.parse_args()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="judge-contract-") as tmp:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
        environ["JUDGE_DATABASE_URL"] = f"sqlite:///{Path(tmp) / 'history.sqlite3'}"
        log = (Path(tmp) / "server.log").open("wb")
        command = [str(BIN / "judge"), "serve", "--host", "127.0.0.1", "--port", str(port)]
        server = subprocess.Popen(command, cwd=REPO, env=environ, stdout=log, stderr=log)
        try:
            wait_for_health(url, server)
            fuzz = [str(BIN / "st"), "--config-file", str(REPO / "schemathesis.toml"), "run"]
            fuzz += [f"{url}/openapi.json", "--checks", "all", "-n", str(options.max_examples)]
            return subprocess.call(fuzz, cwd=tmp)
        finally:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()


if __name__ == "__main__":
    sys.exit(main())
