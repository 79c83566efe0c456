"""The judge image, built with podman and run with its defaults: the operator's `docker run`.

One container serves the module: health as its HEALTHCHECK sees it, the layers it reports,
grades over the published port, the HTTP hostility tests against it, what its user may write,
and last, a `stop` that ends it cleanly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.catalog import Catalog, Exercise
from tests.container.engine import ROOT, Podman, free_port, process_tree, still_alive

pytestmark = [pytest.mark.container, pytest.mark.timeout(1800)]

# What the judge user may write to, for each path tried: only the history's folder.
WRITE_PROBE = r"""
import json, os, sys
results = {}
for path in sys.argv[1:]:
    target = os.path.join(path, ".write-probe") if os.path.isdir(path) else path
    try:
        with open(target, "a"):
            pass
    except OSError as exc:
        results[path] = type(exc).__name__
    else:
        results[path] = "written"
        if target != path:
            os.unlink(target)
writable = []
for top in ("/app", "/opt/venv"):
    for folder, dirs, files in os.walk(top):
        for name in [folder] + [os.path.join(folder, f) for f in files]:
            # Symlinks: their own mode is always 0777, and a write goes to the target.
            if not os.path.islink(name) and os.access(name, os.W_OK):
                writable.append(name)
print(json.dumps({"tried": results, "writable": writable}))
"""


@dataclass
class Running:
    name: str
    url: str
    host_pid: int


@pytest.fixture(scope="module")
def container(podman: Podman, image: str) -> Iterator[Running]:
    name = f"judge-test-{os.getpid()}"
    port = free_port()
    # Defaults: no --privileged, no --cap-add, no --security-opt, the image's own USER.
    podman.run("run", "--detach", "--name", name, "--publish", f"127.0.0.1:{port}:8000", image)
    try:
        host_pid = int(podman.inspect(name, "{{.State.Pid}}"))
        yield Running(name, f"http://127.0.0.1:{port}", host_pid)
    finally:
        podman.run("rm", "--force", "--time", "5", name, check=False)


@pytest.fixture(scope="module")
def healthy(podman: Podman, container: Running) -> Running:
    assert podman.wait_healthy(container.name) == "healthy"
    return container


@pytest.fixture(scope="module")
def catalog_here() -> Catalog:
    return Catalog.load(ROOT / "exercises")


def grade(url: str, exercise_id: str, code: str) -> httpx.Response:
    return httpx.post(
        f"{url}/api/exercises/{exercise_id}/submissions", json={"code": code}, timeout=60
    )


def test_image_keeps_its_healthcheck_user_and_command(podman: Podman, image: str) -> None:
    facts = json.loads(podman.run("image", "inspect", image).stdout)[0]
    health = facts.get("Healthcheck") or {}
    assert "/api/health" in " ".join(health.get("Test", [])), f"HEALTHCHECK lost: {health}"
    assert facts["Config"]["User"] == "10001:10001"
    assert facts["Config"]["Cmd"][:2] == ["judge", "serve"]


def test_runs_as_the_image_user_and_is_not_privileged(podman: Podman, healthy: Running) -> None:
    status = Path(f"/proc/{healthy.host_pid}/status").read_text()
    uids = re.search(r"^Uid:\s+(.*)$", status, re.M)
    assert uids is not None and set(uids.group(1).split()) == {"10001"}, status
    assert podman.inspect(healthy.name, "{{.HostConfig.Privileged}}") == "false"
    inside = podman.run("exec", healthy.name, "id", "-u").stdout.strip()
    assert inside == "10001"


def test_health_reports_every_mandatory_layer_on(healthy: Running) -> None:
    body = httpx.get(f"{healthy.url}/api/health", timeout=10).json()
    assert body["status"] == "ok"
    layers = body["sandbox"]
    for layer in ("rlimits", "clean_env", "no_new_privs", "seccomp", "policy"):
        assert layers[layer] is True, f"{layer} off in a default run: {body}"
    assert layers["uid_drop"] is False  # the server is already unprivileged: nothing to drop
    lsm = Path("/sys/kernel/security/lsm")
    if lsm.exists() and "landlock" in lsm.read_text():
        assert layers["landlock"] is True, body  # podman's default profile allows landlock_*
    assert body["pool"]["alive"] is True
    assert body["history"]["database"] == "sqlite"


def test_both_references_are_accepted_over_the_published_port(
    healthy: Running, catalog_here: Catalog
) -> None:
    exercises = list(catalog_here)
    assert len(exercises) >= 2
    for exercise in exercises:
        response = grade(healthy.url, exercise.id, exercise.solution_code)
        assert response.status_code == 200, response.text
        report = response.json()
        assert (report["status"], report["verdict"]) == ("pass", "accepted"), report
        assert report["passed"] == report["total"] == len(exercise.cases)


def _wrong(exercise: Exercise) -> str:
    """A function that runs fine and answers None to every case: wrong, not broken."""
    return f"def {exercise.entry_point}(*args, **kwargs):\n    return None\n"


def test_a_wrong_submission_is_a_wrong_answer(healthy: Running, catalog_here: Catalog) -> None:
    exercise = next(iter(catalog_here))
    response = grade(healthy.url, exercise.id, _wrong(exercise))
    assert response.status_code == 200, response.text
    report = response.json()
    assert (report["status"], report["verdict"]) == ("fail", "wrong_answer"), report
    assert report["passed"] < report["total"]
    assert all(test["status"] == "fail" for test in report["tests"])


def test_the_http_hostility_tests_pass_against_the_container(healthy: Running) -> None:
    suite = ROOT / "tests" / "http" / "test_real_server.py"
    marked = suite.read_text(encoding="utf-8").count("@pytest.mark.any_server\n")
    assert marked >= 5
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(suite), "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        env={**os.environ, "JUDGE_TEST_BASE_URL": healthy.url},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    summary = completed.stdout.strip().splitlines()[-1] if completed.stdout.strip() else ""
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
    assert re.search(rf"\b{marked} passed\b", summary), summary
    assert "skipped" not in summary and "failed" not in summary, summary


def test_code_and_exercises_are_read_only_and_only_var_is_writable(
    podman: Podman, healthy: Running, catalog_here: Catalog
) -> None:
    exercise = next(iter(catalog_here))
    site = podman.run(
        "exec", healthy.name, "python", "-c", "import app, os; print(os.path.dirname(app.__file__))"
    ).stdout.strip()
    tried = [
        "/app",
        "/app/exercises",
        f"/app/exercises/{exercise.id}",
        f"/app/exercises/{exercise.id}/solution.py",
        site,
        f"{site}/main.py",
        "/opt/venv/bin",
        "/app/var",
    ]
    probe = podman.run("exec", healthy.name, "python", "-c", WRITE_PROBE, *tried)
    result = json.loads(probe.stdout)
    assert result["tried"].pop("/app/var") == "written"
    assert set(result["tried"].values()) == {"PermissionError"}, result["tried"]
    assert result["writable"], "the probe saw nothing writable, not even /app/var"
    outside = [path for path in result["writable"] if not path.startswith("/app/var")]
    assert not outside, f"writable by the judge user outside /app/var: {outside[:20]}"


def test_stop_ends_it_with_exit_0_and_leaves_no_process(podman: Podman, healthy: Running) -> None:
    # Something graded first, so the pool has a zygote and spare children to take down.
    assert httpx.get(f"{healthy.url}/api/health", timeout=10).json()["pool"]["alive"]
    before = process_tree(healthy.host_pid)
    assert len(before) >= 2, f"no zygote under the server: {before}"
    started = time.monotonic()
    # SIGTERM, then SIGKILL after 10 s (Docker's default): an exit code of 0 means SIGTERM did it.
    podman.run("stop", "--time", "10", healthy.name, timeout=60)
    took = time.monotonic() - started
    print(f"\npodman stop: {took:.1f} s for {len(before)} processes")
    assert podman.inspect(healthy.name, "{{.State.ExitCode}}") == "0"
    deadline = time.monotonic() + 5
    while still_alive(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not still_alive(before), f"left running after stop: {still_alive(before)}"
