"""Faults of the sandbox's processes under a real judge, as an operator or the kernel makes them:
a learner's child killed from outside twice is answered 503 with Retry-After and never stored
as the learner's failure; a killed zygote is replaced while health answers as ever; a SIGKILLed
server's orphaned zygote exits without a word."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from pathlib import Path

import httpx
import pytest
from live_server import start_server

from tests.procfs import stat_fields
from tests.sandbox.test_foreign_kills import busy_child

pytestmark = pytest.mark.real_judge

EXERCISE = "speculative-decoding-verify"
# A correct-looking answer that first spins for about a second of CPU: long enough to be killed.
SPINNING = (
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
    "    total = 0\n"
    "    for i in range(3_000_000):\n"
    "        total += i\n"
    "    return [], 0\n"
)


def zygote_of(url: str) -> int:
    pid = httpx.get(url + "/api/health", timeout=10).json()["pool"]["zygote_pid"]
    assert isinstance(pid, int)
    return pid


def stored_rows(database: Path) -> int:
    if not database.exists():
        return 0
    with sqlite3.connect(database) as db:
        return int(db.execute("SELECT count(*) FROM submissions").fetchone()[0])


def test_a_child_killed_twice_is_a_503_and_not_the_learners_failure(tmp_path: Path) -> None:
    server = start_server(tmp_path, JUDGE_WORKERS="1")
    try:
        zygote = zygote_of(server.url)
        answer: dict[str, httpx.Response] = {}

        def post() -> None:
            answer["it"] = httpx.post(
                f"{server.url}/api/exercises/{EXERCISE}/submissions",
                json={"code": SPINNING},
                timeout=60,
            )

        client = threading.Thread(target=post)
        client.start()
        first = busy_child(zygote)
        os.kill(first, signal.SIGKILL)
        os.kill(busy_child(zygote, not_pid=first), signal.SIGKILL)
        client.join(timeout=60)
        response = answer["it"]
        assert response.status_code == 503, response.text
        assert int(response.headers["Retry-After"]) >= 1
        assert "killed from outside" in response.json()["detail"]
        time.sleep(1)  # the history writer would have had time to store a row
        assert stored_rows(tmp_path / "history.sqlite3") == 0
        assert "Traceback" not in server.log.read_text()
    finally:
        server.stop()


def _grade_until_gone(url: str) -> None:
    """Quick grades back to back, until the server is killed under them."""
    code = SPINNING.replace("3_000_000", "10")
    with httpx.Client(base_url=url, timeout=30) as client:
        for n in range(10_000):
            try:
                client.post(
                    f"/api/exercises/{EXERCISE}/submissions", json={"code": f"{code}# {n}\n"}
                )
            except httpx.TransportError:
                return


def test_an_orphaned_zygote_exits_quietly_after_its_server_is_killed(tmp_path: Path) -> None:
    server = start_server(tmp_path, JUDGE_WORKERS="2")
    zygote = zygote_of(server.url)
    for _ in range(5):  # spares forked, children reported: the pipes in use
        ok = httpx.post(
            f"{server.url}/api/exercises/{EXERCISE}/submissions",
            json={"code": SPINNING.replace("3_000_000", "10")},
            timeout=30,
        )
        assert ok.status_code == 200
    # Grades in flight when it dies: their children end after it, and are reported to no one.
    clients = [threading.Thread(target=_grade_until_gone, args=(server.url,)) for _ in range(4)]
    for client in clients:
        client.start()
    time.sleep(2)
    server.stop(signal.SIGKILL)
    for client in clients:
        client.join(timeout=30)
    deadline = time.monotonic() + 20
    while zygote in stat_fields() and stat_fields()[zygote][0] != "Z":
        assert time.monotonic() < deadline, "the orphaned zygote did not exit"
        time.sleep(0.05)
    time.sleep(0.2)  # its last words, if any, reach the log
    log = server.log.read_text()
    assert "Traceback" not in log and "BrokenPipeError" not in log, log[-2000:]
