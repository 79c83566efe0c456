"""Podman for the container tests, set up as this project's machines need it (runc, limits).

podman runs no health checks on its own without systemd, so ``wait_healthy`` runs the image's
HEALTHCHECK through ``podman healthcheck run``, which records the result as the timer would.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from tests.procfs import stat_fields

ROOT = Path(__file__).resolve().parents[2]
CONTAINERS_CONF = ROOT / "docker" / "containers.conf"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def unavailable(reason: str) -> NoReturn:
    """Skip on a developer machine; in CI a missing tool is a failure, not a skip."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this must not be skipped)")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Podman:
    """The podman command with the project's containers.conf."""

    program: str

    @property
    def env(self) -> dict[str, str]:
        # The docker format keeps HEALTHCHECK in images that podman-compose builds.
        return {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF), "BUILDAH_FORMAT": "docker"}

    def run(
        self, *args: str, timeout: float = 120, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        completed = subprocess.run(
            [self.program, *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and completed.returncode != 0:
            raise AssertionError(
                f"podman {' '.join(args)} exited {completed.returncode}:\n"
                f"{completed.stdout[-3000:]}{completed.stderr[-3000:]}"
            )
        return completed

    def inspect(self, name: str, template: str) -> str:
        return self.run("inspect", name, "--format", template).stdout.strip()

    def wait_healthy(self, name: str, timeout: float = 120) -> str:
        """Run the container's HEALTHCHECK until it passes; its recorded status then."""
        deadline = time.monotonic() + timeout
        while True:
            if self.inspect(name, "{{.State.Running}}") != "true":
                logs = self.run("logs", name, check=False)
                raise AssertionError(f"{name} stopped:\n{logs.stdout[-3000:]}{logs.stderr[-3000:]}")
            if self.run("healthcheck", "run", name, check=False).returncode == 0:
                return self.inspect(name, "{{.State.Health.Status}}")
            if time.monotonic() > deadline:
                logs = self.run("logs", name, check=False)
                raise AssertionError(f"{name} unhealthy after {timeout} s:\n{logs.stderr[-3000:]}")
            time.sleep(1)


def find_podman() -> Podman:
    program = shutil.which("podman")
    if program is None:
        unavailable("podman is not installed (.ci/run installs it: apt-get install podman runc)")
    engine = Podman(program)
    info = engine.run("info", "--format", "{{.Host.OCIRuntime.Name}}", check=False)
    if info.returncode != 0:
        unavailable(f"podman does not work here: {info.stderr.strip()[-500:]}")
    return engine


def process_tree(pid: int) -> set[tuple[int, str]]:
    """(pid, start time) of ``pid`` and every live process below it, from the host's /proc."""
    table = stat_fields()
    found: set[tuple[int, str]] = set()
    for candidate, fields in table.items():
        if fields[0] == "Z":
            continue
        parent, hops = candidate, 0
        while parent not in (0, 1, pid) and parent in table and hops < 1000:
            parent, hops = int(table[parent][1]), hops + 1
        if parent == pid:
            found.add((candidate, fields[19]))
    return found


def still_alive(processes: set[tuple[int, str]]) -> set[tuple[int, str]]:
    table = stat_fields()
    return {
        (pid, started)
        for pid, started in processes
        if pid in table and table[pid][19] == started and table[pid][0] != "Z"
    }
