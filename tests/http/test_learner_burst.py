"""The per-learner cap on a real server (uvicorn, the real judge): one learner's burst of
infinite loops gets two grades and 429s at once, and another learner's correct grade is
answered while that learner's two still run. Timings are printed, not asserted."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from live_server import REPO, RealServer, start_server

from app.catalog import Catalog

pytestmark = pytest.mark.real_judge
BURST = 12


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealServer]:
    running = start_server(tmp_path_factory.mktemp("burst"), JUDGE_WORKERS="2")
    try:
        yield running
    finally:
        running.stop()


def spinner(entry_point: str, parameters: list[str], n: int) -> str:
    return f"def {entry_point}({', '.join(parameters)}):\n    while True:\n        pass\n# {n}\n"


def test_one_learners_burst_is_capped_and_another_learner_is_served(
    server: RealServer,
) -> None:
    exercise = next(iter(Catalog.load(REPO / "exercises")))
    url = f"{server.url}/api/exercises/{exercise.id}/submissions"
    hog = {"Cookie": f"judge_learner={'e' * 32}"}
    other = {"Cookie": f"judge_learner={'f' * 32}"}
    start = threading.Barrier(BURST)

    def one(n: int) -> tuple[int, float, str | None]:
        code = spinner(exercise.entry_point, list(exercise.parameters), n)
        start.wait()
        sent = time.perf_counter()
        answer = httpx.post(url, json={"code": code}, headers=hog, timeout=120)
        return answer.status_code, time.perf_counter() - sent, answer.headers.get("retry-after")

    with ThreadPoolExecutor(BURST) as pool:
        burst = [pool.submit(one, n) for n in range(BURST)]
        time.sleep(0.3)  # the hog's two are running now
        sent = time.perf_counter()
        served = httpx.post(url, json={"code": exercise.solution_code}, headers=other, timeout=60)
        other_s = time.perf_counter() - sent
        hog_two_running = not all(f.done() for f in burst)
        results = [f.result(timeout=120) for f in burst]

    statuses = [status for status, _, _ in results]
    refused = [elapsed for status, elapsed, _ in results if status == 429]
    print(
        f"\nburst of {BURST} loops from one learner: {statuses.count(200)} graded, "
        f"{len(refused)} refused with 429 (median answer {statistics.median(refused) * 1000:.1f}"
        f" ms); another learner's grade meanwhile: {other_s * 1000:.1f} ms"
    )
    assert statuses.count(200) == 2 and statuses.count(429) == BURST - 2
    assert all(after == "1" for status, _, after in results if status == 429)
    assert served.status_code == 200 and served.json()["verdict"] == "accepted"
    assert hog_two_running, "the hog's grades finished before the other learner was served"

    # Without a cookie the address counts: this client's cookie-less burst gets two as well.
    start = threading.Barrier(BURST)

    def anonymous(n: int) -> int:
        code = spinner(exercise.entry_point, list(exercise.parameters), 100 + n)
        start.wait()
        return httpx.post(url, json={"code": code}, timeout=120).status_code

    with ThreadPoolExecutor(BURST) as pool:
        anonymous_statuses = list(pool.map(anonymous, range(BURST)))
    assert anonymous_statuses.count(200) == 2, anonymous_statuses
    assert anonymous_statuses.count(429) == BURST - 2


def test_the_cookie_and_the_id_stay_out_of_the_log(server: RealServer) -> None:
    answer = httpx.get(server.url + "/")
    issued = answer.cookies["judge_learner"]
    exercise = next(iter(Catalog.load(REPO / "exercises")))
    httpx.post(
        f"{server.url}/api/exercises/{exercise.id}/submissions",
        json={"code": exercise.solution_code},
        cookies={"judge_learner": issued},
        timeout=60,
    )
    assert issued not in Path(server.log).read_text(errors="replace")
