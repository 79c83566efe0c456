"""Against a real uvicorn server (`app.server.serve` in a subprocess) with the real Judge.

The tests marked ``any_server`` also run against a judge elsewhere: with
``JUDGE_TEST_BASE_URL=http://HOST:PORT`` they target it (tests/container does so for the image),
and the rest are deselected.

These need ``app.grading.judge.Judge.create`` and the exercises under ``exercises/``; until the real
Judge exists they fail at server start-up, by design (they are not skipped).
"""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from live_server import REPO, ExternalServer, RealServer, start_server

from app.catalog import Catalog, Exercise
from tests.procfs import stat_fields

pytestmark = pytest.mark.real_judge
ONE_MIB = 1 << 20


@pytest.fixture(scope="module")
def exercise() -> Exercise:
    catalog = Catalog.load(REPO / "exercises")
    assert len(catalog) > 0, "no exercise under exercises/"
    return next(iter(catalog))


def submit(client: httpx.Client, exercise_id: str, code: str) -> httpx.Response:
    return client.post(f"/api/exercises/{exercise_id}/submissions", json={"code": code})


@pytest.mark.any_server
def test_health_reports_the_real_layers(real_client: httpx.Client) -> None:
    response = real_client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["sandbox"] and all(isinstance(v, bool) for v in body["sandbox"].values())
    for layer in ("rlimits", "clean_env", "seccomp", "policy"):
        assert body["sandbox"][layer] is True, layer  # a production start: nothing missing
    assert isinstance(body["pool"], dict)
    assert response.headers["cache-control"] == "no-store"
    assert "server" not in response.headers


@pytest.mark.parametrize("path", ["/api/health", "/api/exercises", "/", "/static/judge.css"])
def test_head_answers_as_get_would_without_a_body(real_client: httpx.Client, path: str) -> None:
    # Health checks and monitors often probe with HEAD.
    got = real_client.get(path)
    head = real_client.head(path)
    assert (head.status_code, got.status_code) == (200, 200)
    assert head.content == b""
    assert head.headers["content-type"] == got.headers["content-type"]
    assert head.headers["x-content-type-options"] == "nosniff"
    if "content-length" in got.headers and path != "/api/health":  # health's numbers move
        assert head.headers["content-length"] == str(len(got.content))
    # A path that answers POST only still says so: 405 with its Allow.
    refused = real_client.head("/api/exercises/x/submissions")
    assert (refused.status_code, refused.headers["allow"]) == (405, "POST")


@pytest.mark.any_server
def test_reference_solution_is_accepted(real_client: httpx.Client, exercise: Exercise) -> None:
    response = submit(real_client, exercise.id, exercise.solution_code)
    assert response.status_code == 200
    report = response.json()
    assert (report["status"], report["verdict"]) == ("pass", "accepted"), report
    assert report["passed"] == report["total"] == len(exercise.cases)
    assert [t["name"] for t in report["tests"]] == [c.name for c in exercise.cases]


@pytest.mark.any_server
def test_broken_code_is_a_200_report(real_client: httpx.Client, exercise: Exercise) -> None:
    response = submit(real_client, exercise.id, "def broken(:\n    pass\n")
    assert response.status_code == 200
    report = response.json()
    assert report["status"] == "error"
    assert report["verdict"] == "compile_error"
    assert report["message"]


@pytest.mark.any_server
def test_concurrent_grades_all_answer(real_client: httpx.Client, exercise: Exercise) -> None:
    def one(n: int) -> httpx.Response:
        # 24 learners, each with a cookie of their own (one learner gets only a few at once).
        cookies = {"judge_learner": f"{n + 1:032x}"}
        with httpx.Client(base_url=str(real_client.base_url), timeout=30, cookies=cookies) as c:
            return submit(c, exercise.id, exercise.solution_code)

    with ThreadPoolExecutor(8) as pool:
        responses = list(pool.map(one, range(24)))
    for response in responses:
        assert response.status_code in (200, 503), response.text
        if response.status_code == 503:
            assert int(response.headers["retry-after"]) >= 1
        else:
            assert response.json()["verdict"] == "accepted"
    assert sum(r.status_code == 200 for r in responses) >= 8


def test_graded_submissions_reach_the_database(
    real_server: RealServer, real_client: httpx.Client, exercise: Exercise
) -> None:
    assert submit(real_client, exercise.id, exercise.solution_code).status_code == 200
    database = real_server.log.parent / "history.sqlite3"
    deadline = time.monotonic() + 5
    count = 0
    while time.monotonic() < deadline and count == 0:
        with sqlite3.connect(database) as db:
            count = db.execute(
                "SELECT COUNT(*) FROM submissions WHERE exercise_id = ?", (exercise.id,)
            ).fetchone()[0]
        time.sleep(0.05)
    assert count > 0


@pytest.mark.any_server
def test_one_mib_body_is_413_over_the_wire(real_client: httpx.Client, exercise: Exercise) -> None:
    body = json.dumps({"code": "x" * ONE_MIB}).encode()
    url = f"/api/exercises/{exercise.id}/submissions"
    headers = {"content-type": "application/json"}
    with_length = real_client.post(url, content=body, headers=headers)
    assert with_length.status_code == 413
    chunked = real_client.post(
        url, content=(body[i : i + 65536] for i in range(0, len(body), 65536)), headers=headers
    )
    assert chunked.request.headers["transfer-encoding"] == "chunked"
    assert chunked.status_code == 413
    assert chunked.json()["detail"].startswith("Request body exceeds")


def raw_response(server: RealServer | ExternalServer, request: bytes, timeout: float = 5) -> bytes:
    """Send ``request`` on a raw socket and read until the response head has arrived."""
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received:
            data = sock.recv(65536)
            if not data:
                break
            received += data
    return received


@pytest.mark.any_server
def test_declared_oversize_body_is_refused_before_it_is_sent(
    real_server: RealServer | ExternalServer, exercise: Exercise
) -> None:
    head = (
        f"POST /api/exercises/{exercise.id}/submissions HTTP/1.1\r\nHost: x\r\n"
        f"Content-Type: application/json\r\nContent-Length: {100 * ONE_MIB}\r\n\r\n"
    ).encode()
    answer = raw_response(real_server, head + b'{"code": "')  # the other 100 MiB never come
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


@pytest.mark.any_server
def test_chunked_body_is_refused_at_the_cap(
    real_server: RealServer | ExternalServer, exercise: Exercise
) -> None:
    chunk = b"x" * ONE_MIB
    request = (
        (
            f"POST /api/exercises/{exercise.id}/submissions HTTP/1.1\r\nHost: x\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            f"{len(chunk):x}\r\n"
        ).encode()
        + chunk
        + b"\r\n"
    )  # no last chunk: the stream is still open when 413 comes
    answer = raw_response(real_server, request)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


# --- shutdown leaves nothing behind ---


def process_table() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state, start time) for every process, from /proc."""
    return {
        pid: (int(fields[1]), fields[0], int(fields[19])) for pid, fields in stat_fields().items()
    }


def descendants(root: int) -> set[tuple[int, int]]:
    """(pid, start time) of every live process whose parent chain includes ``root``."""
    table = process_table()
    found = set()
    for pid, (_, state, started) in table.items():
        parent, seen = table[pid][0], 0
        while parent not in (0, 1, root) and parent in table and seen < 1000:
            parent, seen = table[parent][0], seen + 1
        if parent == root and pid != root and state != "Z":
            found.add((pid, started))
    return found


def still_running(processes: set[tuple[int, int]]) -> set[tuple[int, int]]:
    table = process_table()
    return {
        (pid, t)
        for pid, t in processes
        if pid in table and table[pid][2] == t and table[pid][1] != "Z"
    }


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_shutdown_leaves_no_child_process(tmp_path: Path, exercise: Exercise, sig: int) -> None:
    server = start_server(tmp_path)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert submit(client, exercise.id, exercise.solution_code).status_code == 200
        before = descendants(server.proc.pid)
        assert before, "the warm pool should run at least one process under the server"
    finally:
        returncode = server.stop(sig)
    assert returncode == 0, server.log_tail()
    deadline = time.monotonic() + 10
    while still_running(before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not still_running(before), f"orphans {still_running(before)}:\n{server.log_tail()}"
