"""Past every bound the API says 503 with Retry-After, never another 5xx and never a hang;
the hanging jobs it took still get their reports, and nothing outlives them or the server.

A real server (uvicorn, the real judge) with the smallest bounds: one fast slot, one place in
the queue, one parked child in the slow lane.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import RealServer, start_server

from tests.procfs import stat_fields

pytestmark = pytest.mark.real_judge
EXERCISE_ID = "speculative-decoding-verify"
BURST = 6
SPIN = (
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
    "    while True:\n"
    "        pass\n"
)


@pytest.fixture
def small_server(tmp_path: Path) -> Iterator[RealServer]:
    server = start_server(tmp_path, JUDGE_WORKERS="1", JUDGE_QUEUE_SIZE="1", JUDGE_SLOW_LANE="1")
    try:
        yield server
    finally:
        server.stop()


def lanes(client: httpx.Client) -> dict[str, Any]:
    return dict(client.get("/api/health").json()["pool"]["lanes"])


def wait_until(predicate: Any, what: str, limit_s: float = 30) -> None:
    deadline = time.monotonic() + limit_s
    while not predicate():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def descendants(pid: int) -> list[int]:
    table = stat_fields()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {
            child
            for child, fields in table.items()
            if int(fields[1]) in frontier and fields[0] not in "ZX"
        } - found
        found |= frontier
    return sorted(found)


def test_past_every_bound_503_and_the_hanging_jobs_still_get_reports(
    small_server: RealServer,
) -> None:
    path = f"/api/exercises/{EXERCISE_ID}/submissions"
    serials = itertools.count()
    with (
        httpx.Client(base_url=small_server.url, timeout=60) as client,
        ThreadPoolExecutor(max_workers=BURST) as pool,
    ):

        def submit(start: threading.Barrier | None = None) -> httpx.Response:
            serial = next(serials)
            code = SPIN + f"# learner {serial}\n"
            # Each spinner is another learner's: one learner gets only a few grades at once.
            learner = {"Cookie": f"judge_learner={serial + 1:032x}"}
            if start is not None:
                start.wait()
            return client.post(path, json={"code": code}, headers=learner)

        idle = lanes(client)
        assert idle["fast"] == {"in_use": 0, "capacity": 1}
        assert idle["slow"]["capacity"] == 1 and idle["queue"]["capacity"] == 1
        first = pool.submit(submit)
        # It runs long: it is demoted, and parks in the one slow place.
        wait_until(lambda: lanes(client)["slow"]["in_use"] == 1, "the first job demoted")
        # The fast slot and the place in the queue take two more spinners, and a burst of six
        # arriving together finds every bound reached. A spinner leaves its fast slot for the
        # slow lane after a few milliseconds (evicting the parked one), so the burst is tried
        # again if a slow machine spread its arrivals over that long.
        accepted: list[httpx.Response] = []
        refused: list[httpx.Response] = []
        for _ in range(5):
            start = threading.Barrier(BURST)
            burst = [pool.submit(submit, start) for _ in range(BURST)]
            for response in (future.result(timeout=60) for future in burst):
                (refused if response.status_code == 503 else accepted).append(response)
            if refused:
                break
        accepted.append(first.result(timeout=60))
        health = client.get("/api/health").json()["pool"]

    assert refused, "six spinners at once never found every bound reached"
    for response in refused:
        assert int(response.headers["Retry-After"]) >= 1
        assert "busy" in response.json()["detail"]
    assert len(accepted) >= 3  # the parked one, the running one and the queued one
    for response in accepted:
        assert response.status_code == 200, response.text
        report = response.json()
        assert report["verdict"] == "time_limit_exceeded"
        assert [t["status"] for t in report["tests"]] == ["error"] * 6
        assert all(t["message"].startswith("not run") for t in report["tests"][1:])
    # No child outlives its verdict: what is left are the idle spares, waiting for work.
    zygote = health["zygote_pid"]
    wait_until(lambda: len(descendants(zygote)) <= health["workers"], "the spinners gone")
    assert all(stat_fields()[pid][0] == "S" for pid in descendants(zygote))
    server_pid = small_server.proc.pid
    assert zygote in descendants(server_pid)
    small_server.stop()
    assert descendants(server_pid) == [] and zygote not in stat_fields()
