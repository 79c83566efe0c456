"""The per-learner cap: a learner's grades beyond JUDGE_LEARNER_IN_FLIGHT get 429 at once,
and never delay another learner's (in-process app; the real-server burst is in
test_learner_burst.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from asgi_client import InProcessClient
from test_learners import ALICE, BOB, GradingJudge, as_learner

SLOW = {"code": "slow", "mode": "run"}
QUICK = {"code": "ok", "mode": "run"}
URL = "/api/exercises/add-numbers/submissions"


def run_while_held(
    client: InProcessClient,
    judge: GradingJudge,
    held: list[dict[str, str]],
    probes: list[dict[str, str]],
) -> tuple[list[httpx.Response], list[httpx.Response]]:
    """Start one slow grade per header set in ``held``, wait until they are all inside the
    judge, send ``probes`` (quick grades) while they are, then let the slow ones finish."""

    async def scenario() -> tuple[list[httpx.Response], list[httpx.Response]]:
        judge.release = asyncio.Event()
        http = client._client
        http.cookies.clear()
        slow = [asyncio.create_task(http.post(URL, json=SLOW, headers=h)) for h in held]
        for _ in range(500):
            if judge.waiting == len(held):
                break
            await asyncio.sleep(0.01)
        assert judge.waiting == len(held), "the slow grades never reached the judge"
        answers = []
        for headers in probes:
            http.cookies.clear()  # a refusal also hands out a cookie: keep only what is sent
            answers.append(await asyncio.wait_for(http.post(URL, json=QUICK, headers=headers), 5))
        judge.release.set()
        return list(await asyncio.gather(*slow)), answers

    return client._portal.call(scenario)


@pytest.fixture
def judge() -> GradingJudge:
    return GradingJudge()


def test_a_third_grade_is_refused_and_another_learner_is_not_delayed(
    make_client: Callable[..., InProcessClient], judge: GradingJudge
) -> None:
    client = make_client(judge)
    held, probes = run_while_held(
        client, judge, [as_learner(ALICE)] * 2, [as_learner(ALICE), as_learner(BOB)]
    )
    assert [r.status_code for r in held] == [200, 200]
    refused, other = probes
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["detail"].startswith("You already have 2 grades running")
    assert refused.headers["content-security-policy"]  # the app's headers on it too
    assert other.status_code == 200  # Bob answered while Alice's two were still running
    # Once they finished, Alice may grade again.
    client._client.cookies.clear()
    assert client.post(URL, json=QUICK, headers=as_learner(ALICE)).status_code == 200


@pytest.mark.parametrize("limit", [1, 3])
def test_the_cap_is_the_setting(
    make_client: Callable[..., InProcessClient], judge: GradingJudge, limit: int
) -> None:
    client = make_client(judge, learner_in_flight=limit)
    held, probes = run_while_held(client, judge, [as_learner(ALICE)] * limit, [as_learner(ALICE)])
    assert [r.status_code for r in held] == [200] * limit
    assert probes[0].status_code == 429


def test_custom_runs_count_too(
    make_client: Callable[..., InProcessClient], judge: GradingJudge
) -> None:
    client = make_client(judge, learner_in_flight=1)

    async def scenario() -> int:
        judge.release = asyncio.Event()
        http = client._client
        slow = asyncio.create_task(http.post(URL, json=SLOW, headers=as_learner(ALICE)))
        while judge.waiting < 1:
            await asyncio.sleep(0.01)
        custom = await http.post(
            "/api/exercises/add-numbers/runs",
            json={"code": "x", "input": {"a": 1, "b": 2}},
            headers=as_learner(ALICE),
        )
        judge.release.set()
        await slow
        return custom.status_code

    assert client._portal.call(scenario) == 429


def without_cookie(**headers: str) -> dict[str, str]:
    return dict(headers)


def test_without_a_cookie_the_address_counts(
    make_client: Callable[..., InProcessClient], judge: GradingJudge
) -> None:
    client = make_client(judge)  # the in-process client's address is 127.0.0.1
    held, probes = run_while_held(
        client,
        judge,
        [without_cookie()] * 2,
        [
            without_cookie(),  # the same address: refused
            without_cookie(**{"X-Forwarded-For": "203.0.113.9"}),  # not believed: refused
            as_learner(BOB),  # a learner with a cookie from that address: fine
        ],
    )
    assert [r.status_code for r in held] == [200, 200]
    assert [r.status_code for r in probes] == [429, 429, 200]


def test_forwarded_addresses_count_behind_a_trusted_proxy(
    make_client: Callable[..., InProcessClient], judge: GradingJudge
) -> None:
    client = make_client(judge, trusted_proxies="127.0.0.1, 10.0.0.0/8")
    first = {"X-Forwarded-For": "198.51.100.7"}
    held, probes = run_while_held(
        client,
        judge,
        [first, {"X-Forwarded-For": "1.2.3.4, 198.51.100.7, 10.1.1.1"}],
        [
            first,  # the same client behind two proxies: refused
            {"X-Forwarded-For": "198.51.100.7, 198.51.100.8"},  # the nearest is .8: fine
            {"X-Forwarded-For": "198.51.100.9"},
        ],
    )
    assert [r.status_code for r in held] == [200, 200]
    assert [r.status_code for r in probes] == [429, 200, 200]


def test_openapi_documents_the_429(make_client: Callable[..., Any]) -> None:
    spec = make_client(GradingJudge()).get("/openapi.json").json()
    for path in ("submissions", "runs"):
        answers = spec["paths"][f"/api/exercises/{{exercise_id}}/{path}"]["post"]["responses"]
        assert "Retry-After" in answers["429"]["headers"]
