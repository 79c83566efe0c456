"""Fixtures of the browser tests: the REAL judge under uvicorn, and headless Debian Chromium.

The server is `python -m uvicorn app.main:create_app --factory` in a subprocess on a free
127.0.0.1 port (its own temporary submission database), started once per session. Chromium is
driven by Playwright for Python (sync API) through Debian's /usr/bin/chromium; Playwright's own
browser download is never used. Without that binary every browser test is skipped, with the
reason; CI installs it (.ci/run).

Each test gets a fresh browser context (clean localStorage) and a `Watched` page that records
console errors, page errors and every request; at teardown it asserts that there was no error
and that no request left the judge's own origin.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_settings import INSTRUCTOR_TOKEN

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# Set JUDGE_SCREENSHOTS=/some/dir to keep a screenshot of each page the tests visit.
SCREENSHOT_DIR = os.environ.get("JUDGE_SCREENSHOTS")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives the real judge's pages in headless Chromium"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = None
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium); CI always has it"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "Playwright for Python is not installed (pip install -e '.[dev]')"
    here = Path(__file__).parent
    for item in items:
        if Path(str(item.fspath)).is_relative_to(here):
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[bytes]
    log: Path

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def api(self, path: str) -> Any:
        response = httpx.get(self.url + path, timeout=10)
        response.raise_for_status()
        return response.json()


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The real judge app (real sandbox, real exercises) on a free loopback port."""
    tmp = Path(tempfile.mkdtemp(prefix="judge-browser-"))
    port = _free_port()
    log = tmp / "server.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    env["JUDGE_DATABASE_URL"] = f"sqlite:///{tmp / 'history.sqlite3'}"
    env["JUDGE_INSTRUCTOR_TOKEN"] = INSTRUCTOR_TOKEN
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "app.main:create_app",
        "--factory",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-access-log",
    ]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    running = Server(f"http://127.0.0.1:{port}", proc, log)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the judge exited with {proc.returncode}:\n{running.log_tail()}")
            try:
                if httpx.get(running.url + "/api/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the judge did not answer /api/health in 60 s:\n{running.log_tail()}")
            time.sleep(0.1)
        yield running
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class Watched:
    """A page plus everything it logged and requested."""

    page: Any
    origin: str
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    # Console errors a test expects (e.g. Chromium logs the 404 of a missing exercise).
    allowed_errors: list[str] = field(default_factory=list)

    def goto(self, path: str) -> None:
        self.page.goto(self.origin + path)

    def screenshot(self, name: str) -> None:
        if SCREENSHOT_DIR:
            Path(SCREENSHOT_DIR).mkdir(parents=True, exist_ok=True)
            self.page.screenshot(path=str(Path(SCREENSHOT_DIR) / f"{name}.png"), full_page=True)

    def assert_clean(self) -> None:
        errors = [e for e in self.errors if not any(a in e for a in self.allowed_errors)]
        assert errors == [], f"console or page errors: {errors}"
        outside = [url for url in self.requests if not url.startswith(self.origin + "/")]
        assert outside == [], f"requests that left the judge: {outside}"
        assert self.requests, "no request was recorded at all"


def _watch(context: Any, origin: str) -> Watched:
    page = context.new_page()
    page.set_default_timeout(30_000)
    watched = Watched(page, origin)
    page.on(
        "console",
        lambda message: (
            watched.errors.append(f"console: {message.text}") if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: watched.errors.append(f"page error: {error}"))
    page.on("request", lambda request: watched.requests.append(request.url))
    return watched


@pytest.fixture
def make_page(browser: Any, server: Server) -> Iterator[Any]:
    """make_page(width=1280, height=900) -> Watched, in its own fresh context."""
    contexts: list[tuple[Any, Watched]] = []

    def make(width: int = 1280, height: int = 900) -> Watched:
        context = browser.new_context(viewport={"width": width, "height": height})
        watched = _watch(context, server.url)
        contexts.append((context, watched))
        return watched

    yield make
    try:
        for _, watched in contexts:
            watched.assert_clean()
    finally:
        for context, _ in contexts:
            context.close()


@pytest.fixture
def page(make_page: Any) -> Watched:
    return make_page()
