"""Container tests: the Dockerfile's facts, and the image built and run for real with podman."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.container.engine import ROOT, Podman, find_podman

IMAGE = "localhost/judge:test"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "container: builds the image with podman (docker/build.sh) and runs it",
    )


@pytest.fixture(scope="session")
def podman() -> Podman:
    return find_podman()


@pytest.fixture(scope="session")
def image(podman: Podman) -> str:
    """The judge image, built once per session by the same script as `make image`."""
    started = time.monotonic()
    completed = subprocess.run(
        ["docker/build.sh", IMAGE],
        cwd=ROOT,
        env={**podman.env, "JUDGE_ENGINE": "podman"},
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    size = int(podman.inspect(IMAGE, "{{.Size}}"))
    print(f"\nimage {IMAGE}: built in {time.monotonic() - started:.0f} s, {size / 1e6:.0f} MB")
    return IMAGE
