"""deploy/compose.yaml brought up with podman-compose: two judges, PostgreSQL, nginx in front.

podman 4.3 ignores `depends_on: condition: service_healthy` (podman-compose says so), so the
stack comes up in the order the conditions state, each step waiting for the HEALTHCHECK:
database, then the judges, then the balancer; docs/deploy.md gives the same steps.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.catalog import Catalog
from tests.container.engine import ROOT, Podman, free_port, unavailable

pytestmark = [pytest.mark.container, pytest.mark.timeout(1800)]

COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
REPLICAS = ("judge1", "judge2")
QUEUE_SIZE = 8
# What one replica holds at once with JUDGE_WORKERS=1: its worker, its queue, its slow lane.
HELD_PER_REPLICA = 1 + QUEUE_SIZE + 4
LOOPING_VERIFY = (
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
    "    while True:\n"
    "        pass\n"
)


def find_compose() -> str:
    beside = Path(sys.executable).parent / "podman-compose"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("podman-compose")
    if found is None:
        unavailable("podman-compose is not installed (.ci/run: pip install podman-compose)")
    return found


@dataclass
class Stack:
    podman: Podman
    compose: list[str]
    env: dict[str, str]
    project: str
    url: str

    def container(self, service: str) -> str:
        return f"{self.project}_{service}_1"

    def up(self, *services: str) -> None:
        completed = subprocess.run(
            [*self.compose, "up", "--detach", *services],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]

    def address(self, service: str) -> str:
        template = "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}"
        return self.podman.inspect(self.container(service), template)

    def history_rows(self) -> int:
        query = self.podman.run(
            "exec",
            self.container("db"),
            "psql",
            "--host=/tmp",
            "--username=judge",
            "--dbname=judge",
            "--tuples-only",
            "--no-align",
            "--command=SELECT count(*) FROM submissions",
        )
        return int(query.stdout.strip())

    def wait_for_rows(self, wanted: int, timeout: float = 30) -> int:
        """The history's row count once it reaches ``wanted`` (writes are off the request path)."""
        deadline = time.monotonic() + timeout
        rows = self.history_rows()
        while rows < wanted and time.monotonic() < deadline:
            time.sleep(0.25)
            rows = self.history_rows()
        return rows


@pytest.fixture(scope="module")
def stack(podman: Podman, image: str) -> Iterator[Stack]:
    project = f"judgetest{os.getpid()}"
    port = free_port()
    env = {
        **podman.env,
        "JUDGE_IMAGE": image,
        "JUDGE_DB_PASSWORD": secrets.token_urlsafe(18),
        "JUDGE_BIND": "127.0.0.1",
        "JUDGE_PORT": str(port),
        # A short queue, so that a burst the test can afford fills both replicas: each then
        # holds 1 running + 8 queued + 4 parked submissions (one worker, the default slow lane).
        "JUDGE_QUEUE_SIZE": str(QUEUE_SIZE),
    }
    compose = [find_compose(), "--file", str(COMPOSE_FILE), "--project-name", project]
    base = subprocess.run(
        ["docker/base.sh", podman.program, "debian:bookworm-slim"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert base.returncode == 0, base.stderr[-3000:]
    started = time.monotonic()
    build = subprocess.run(
        [*compose, "build", "db", "balancer"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    built = time.monotonic() - started
    stack = Stack(podman, compose, env, project, f"http://127.0.0.1:{port}")
    started = time.monotonic()
    try:
        stack.up("db")
        assert podman.wait_healthy(stack.container("db")) == "healthy"
        stack.up(*REPLICAS)
        for replica in REPLICAS:
            assert podman.wait_healthy(stack.container(replica)) == "healthy"
        stack.up("balancer")
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{stack.url}/api/health", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, podman.run(
                "logs", stack.container("balancer"), check=False
            ).stderr[-3000:]
            time.sleep(0.5)
        up = time.monotonic() - started
        print(f"\ncompose: images built in {built:.0f} s, stack up and healthy in {up:.0f} s")
        yield stack
    finally:
        subprocess.run(
            [*compose, "down", "--volumes", "--timeout", "10"],
            env=env,
            capture_output=True,
            timeout=300,
            check=False,
        )


@pytest.fixture(scope="module")
def sources() -> list[tuple[str, str]]:
    """(exercise id, reference code) for each exercise: what the load sends, in turn."""
    return [(e.id, e.solution_code) for e in Catalog.load(ROOT / "exercises")]


def unique(code: str, n: int) -> str:
    # Every submission its own source, as real learners send.
    return f"{code}\n# submission {n}\n"


def test_each_replica_is_healthy_through_the_balancer(stack: Stack) -> None:
    for replica in REPLICAS:
        response = httpx.get(f"{stack.url}/replicas/{replica}/api/health", timeout=10)
        assert response.status_code == 200, response.text
        assert response.headers["x-judge-upstream"] == f"{stack.address(replica)}:8000"
        body = response.json()
        assert body["status"] == "ok"
        assert body["history"]["database"] == "postgresql", body
        for layer in ("rlimits", "clean_env", "seccomp", "policy"):
            assert body["sandbox"][layer] is True, body


def learner(n: int) -> dict[str, str]:
    """The cookie of simulated learner ``n``: a class, not one learner (who gets only
    JUDGE_LEARNER_IN_FLIGHT grades at once) and not one address."""
    return {"Cookie": f"judge_learner={n + 1:032x}"}


def test_grades_from_both_replicas_land_in_one_history(
    stack: Stack, sources: list[tuple[str, str]]
) -> None:
    before = stack.history_rows()
    served: Counter[str] = Counter()
    total = 40
    with httpx.Client(base_url=stack.url, timeout=60) as client:
        for n in range(total):
            exercise_id, code = sources[n % len(sources)]
            response = client.post(
                f"/api/exercises/{exercise_id}/submissions", json={"code": unique(code, n)}
            )
            assert response.status_code == 200, response.text
            assert response.json()["verdict"] == "accepted"
            served[response.headers["x-judge-upstream"]] += 1
    replicas = {f"{stack.address(r)}:8000" for r in REPLICAS}
    assert set(served) == replicas, f"not both replicas graded: {served}"
    rows = stack.wait_for_rows(before + total)
    assert rows == before + total, f"{rows - before} history rows for {total} grades"
    print(f"\nhistory: {total} grades, {dict(served)} per replica, {rows - before} rows")


def test_a_burst_past_both_replicas_is_answered_200_or_503_with_retry_after(
    stack: Stack, sources: list[tuple[str, str]]
) -> None:
    """Three times what both replicas hold, all at once, every one an infinite loop: the excess is
    refused with 503 and Retry-After, by a replica or by the balancer once it has marked both
    as failing, never 502 or 504; the held ones get their time_limit_exceeded reports; and the
    stack grades again afterwards."""
    burst = 3 * HELD_PER_REPLICA * len(REPLICAS)
    answers: list[tuple[int, str | None, str]] = []
    lock = threading.Lock()
    url = f"{stack.url}/api/exercises/speculative-decoding-verify/submissions"

    def one(n: int) -> None:
        code = unique(LOOPING_VERIFY, 20_000 + n)
        response = httpx.post(url, json={"code": code}, headers=learner(n), timeout=120)
        verdict = response.json().get("verdict", "") if response.status_code == 200 else ""
        with lock:
            answers.append((response.status_code, response.headers.get("retry-after"), verdict))

    with ThreadPoolExecutor(burst) as pool:
        list(pool.map(one, range(burst)))
    statuses = Counter(status for status, _, _ in answers)
    print(f"\nburst of {burst} looping submissions: statuses {dict(statuses)}")
    assert set(statuses) <= {200, 503}, f"a 5xx other than 503: {dict(statuses)}"
    assert statuses[503] > 0, "the burst never filled the replicas"
    assert all(after and after.isdigit() for status, after, _ in answers if status == 503)
    assert {verdict for status, _, verdict in answers if status == 200} <= {"time_limit_exceeded"}
    # Afterwards a learner who waits as told is graded again.
    exercise_id, code = sources[0]
    deadline = time.monotonic() + 30
    while True:
        response = httpx.post(
            f"{stack.url}/api/exercises/{exercise_id}/submissions",
            json={"code": unique(code, 30_000)},
            timeout=60,
        )
        if response.status_code != 503 or time.monotonic() > deadline:
            break
        time.sleep(int(response.headers["retry-after"]))
    assert response.status_code == 200, response.text
    assert response.json()["verdict"] == "accepted"


def test_stopping_a_replica_mid_run_loses_no_grade(
    stack: Stack, sources: list[tuple[str, str]]
) -> None:
    before = stack.history_rows()
    total, concurrency, stop_after = 240, 4, 60
    statuses: Counter[int] = Counter()
    failures: list[str] = []
    retried = 0
    done = 0
    lock = threading.Lock()
    stopped = threading.Event()
    stop_took: list[float] = []

    def stop_one() -> None:
        started = time.monotonic()
        stack.podman.run("stop", "--time", "10", stack.container("judge1"), timeout=60)
        stop_took.append(time.monotonic() - started)
        stopped.set()

    def one(n: int) -> None:
        nonlocal retried, done
        exercise_id, code = sources[n % len(sources)]
        try:
            response = httpx.post(
                f"{stack.url}/api/exercises/{exercise_id}/submissions",
                json={"code": unique(code, 10_000 + n)},
                headers=learner(n),
                timeout=60,
            )
        except httpx.HTTPError as exc:
            with lock:
                failures.append(f"#{n}: {type(exc).__name__}: {exc}")
            return
        with lock:
            statuses[response.status_code] += 1
            retried += "," in response.headers.get("x-judge-upstream", "")
            if response.status_code == 200 and response.json()["verdict"] != "accepted":
                failures.append(f"#{n}: {response.json()['verdict']}")
            done += 1
            start_stop = done == stop_after
        if start_stop:
            threading.Thread(target=stop_one, daemon=True).start()

    started = time.monotonic()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(total)))
    elapsed = time.monotonic() - started
    assert stopped.wait(60), "judge1 did not stop"
    print(
        f"\nreplica stop: {total} grades at c={concurrency} in {elapsed:.1f} s "
        f"({total / elapsed:.0f}/s), statuses {dict(statuses)}, {retried} retried by nginx, "
        f"judge1 stopped after {stop_after} answers in {stop_took[0]:.1f} s"
    )
    assert not failures, failures[:10]
    assert set(statuses) <= {200, 503}, f"a 5xx other than 503: {dict(statuses)}"
    assert stack.podman.inspect(stack.container("judge1"), "{{.State.ExitCode}}") == "0"
    graded = statuses[200]
    rows = stack.wait_for_rows(before + graded)
    print(f"history: {rows - before} rows for {graded} grades")
    # A grade resent after its first replica had recorded it would count twice; none is lost.
    assert graded <= rows - before <= graded + retried
    survivor = httpx.get(f"{stack.url}/replicas/judge2/api/health", timeout=10)
    assert survivor.status_code == 200 and survivor.json()["history"]["lost"] == 0
