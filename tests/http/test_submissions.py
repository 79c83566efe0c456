"""POST /api/exercises/{id}/submissions in process: report, size caps, malformed bodies, 503."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import pytest
from asgi_client import InProcessClient
from http_fakes import BrokenJudge, FakeJudge, SaturatedJudge

URL = "/api/exercises/add-numbers/submissions"
REPORT_KEYS = {
    "status", "mode", "seed", "replayed_seed", "verdict", "message", "passed", "total",
    "duration_ms", "tests",
}  # fmt: skip
CASE_KEYS = {
    "name", "status", "group", "hint", "input", "expected", "actual", "message", "output",
    "duration_ms", "chart",
}  # fmt: skip
ONE_MIB = 1 << 20


async def chunks(data: bytes, size: int = 16 * 1024) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def test_submission_returns_the_report(client: InProcessClient, fake_judge: FakeJudge) -> None:
    response = client.post(URL, json={"code": "def add(a, b):\n    return a + b\n"})
    assert response.status_code == 200
    body = response.json()
    assert set(body) == REPORT_KEYS
    assert body["status"] == "pass" and body["verdict"] == "accepted"
    assert body["passed"] == body["total"] == 6
    assert [case["name"] for case in body["tests"]] == [f"case {i}" for i in range(6)]
    assert all(set(case) == CASE_KEYS for case in body["tests"])
    assert fake_judge.graded == [("add-numbers", "def add(a, b):\n    return a + b\n")]
    assert response.headers["cache-control"] == "no-store"


def test_a_submission_another_site_made_a_browser_send_is_403(
    client: InProcessClient, fake_judge: FakeJudge
) -> None:
    # A page elsewhere posting a form or a no-cors fetch at a judge on localhost.
    response = client.post(
        URL,
        content=b'{"code": "x = 1"}',
        headers={"content-type": "text/plain", "sec-fetch-site": "cross-site"},
    )
    assert response.status_code == 403
    assert "another site" in response.json()["detail"]
    assert fake_judge.graded == []


@pytest.mark.parametrize(
    ("origin", "refused"),
    [
        ("http://evil.example", True),
        ("null", True),  # a sandboxed frame or a file
        ("https://judge.example.evil.example", True),
        ("http://[::1", True),  # not even a URL
        ("http://judge.example", False),
        # Behind a proxy the Host may come without the port the page was loaded from.
        ("https://JUDGE.example:8443", False),
        ("http://judge.example:80", False),
    ],
)
def test_a_browser_without_fetch_metadata_is_judged_by_its_origin(
    client: InProcessClient, fake_judge: FakeJudge, origin: str, refused: bool
) -> None:
    # An older browser sends no Sec-Fetch-Site, but always an Origin with a POST.
    headers = {"content-type": "text/plain", "origin": origin, "host": "judge.example"}
    response = client.post(URL, content=b'{"code": "x = 1"}', headers=headers)
    if refused:
        assert response.status_code == 403
        assert "another site" in response.json()["detail"]
        assert fake_judge.graded == []
    else:
        assert response.status_code == 200
        assert fake_judge.graded == [("add-numbers", "x = 1")]


def test_a_browsers_own_label_is_believed_over_a_host_a_proxy_rewrote(
    client: InProcessClient, fake_judge: FakeJudge
) -> None:
    # Behind a proxy that passes its upstream's name as Host, the page's Origin names another
    # host: a browser that says same-origin is believed.
    headers = {
        "content-type": "application/json",
        "origin": "https://judge.example",
        "host": "judge-upstream:8000",
        "sec-fetch-site": "same-origin",
    }
    response = client.post(URL, content=b'{"code": "x = 1"}', headers=headers)
    assert response.status_code == 200


@pytest.mark.parametrize("site", ["same-origin", "same-site", "none", None])
def test_the_judges_own_page_and_non_browser_clients_may_submit(
    client: InProcessClient, fake_judge: FakeJudge, site: str | None
) -> None:
    headers = {"content-type": "application/json"} | ({"sec-fetch-site": site} if site else {})
    response = client.post(URL, content=b'{"code": "x = 1"}', headers=headers)
    assert response.status_code == 200
    assert fake_judge.graded == [("add-numbers", "x = 1")]


def test_code_at_the_cap_is_accepted_even_when_escaping_inflates_it(
    client: InProcessClient,
) -> None:
    code = "\x01" * (64 * 1024)  # six JSON bytes per source byte: the worst case
    body = json.dumps({"code": code}).encode()
    assert len(body) > 6 * 64 * 1024
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 200


def test_code_over_the_cap_is_413(client: InProcessClient, fake_judge: FakeJudge) -> None:
    response = client.post(URL, json={"code": "x" * (64 * 1024 + 1)})
    assert response.status_code == 413
    assert response.json()["detail"] == "The code is 65537 bytes; the limit is 65536 bytes."
    assert fake_judge.graded == []


def test_code_cap_counts_utf8_bytes(make_client: Callable[..., InProcessClient]) -> None:
    client = make_client(max_code_bytes=10)
    assert client.post(URL, json={"code": "é" * 5}).status_code == 200  # 10 bytes
    assert client.post(URL, json={"code": "é" * 6}).status_code == 413  # 12 bytes


def test_one_mib_body_with_content_length_is_413(client: InProcessClient) -> None:
    body = json.dumps({"code": "x" * ONE_MIB}).encode()
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["detail"].startswith(f"Request body of {len(body)} bytes exceeds")


def test_one_mib_chunked_body_is_413(client: InProcessClient) -> None:
    body = json.dumps({"code": "x" * ONE_MIB}).encode()
    response = client.post(URL, content=chunks(body), headers={"content-type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert "content-length" not in response.request.headers
    assert response.status_code == 413
    assert response.json()["detail"].startswith("Request body exceeds")


def test_chunked_body_is_refused_without_reading_it_all(client: InProcessClient) -> None:
    sent = 0

    async def endless() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"code": "'
        while sent < 64 * ONE_MIB:
            sent += 64 * 1024
            yield b"x" * (64 * 1024)

    response = client.post(URL, content=endless())
    assert response.status_code == 413
    assert sent < 2 * ONE_MIB  # the server stopped pulling the stream at the cap


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"code": ', "body: Invalid JSON"),
        (b"", "body: Invalid JSON"),
        (b"not json", "body: Invalid JSON"),
        # half a surrogate pair: named as such, not as an escape cut short
        (
            b'{"code": "# \\ud800\\nx = 1"}',
            "body: Invalid JSON: an unpaired UTF-16 surrogate escape",
        ),
        (b'{"code": "\\udc00"}', "body: Invalid JSON: an unpaired UTF-16 surrogate escape"),
        (b"{}", "body.code: Field required"),
        (b'{"code": 12}', "body.code: Input should be a valid string"),
        (b'{"code": null}', "body.code: Input should be a valid string"),
        (b'{"code": ["x"]}', "body.code: Input should be a valid string"),
        (b'{"code": "x", "language": "py"}', "body.language: Extra inputs are not permitted"),
        (b'["code"]', "body: Input should be an object"),
        (b'{"code": "x", "mode": "grade"}', "body.mode: Input should be 'run' or 'submit'"),
        # a seed is an integer as sent, not a boolean or a numeric string coerced into one
        (
            b'{"code": "x", "mode": "submit", "seed": true}',
            "body.seed: Input should be a valid integer",
        ),
        (
            b'{"code": "x", "mode": "submit", "seed": "5"}',
            "body.seed: Input should be a valid integer",
        ),
        (
            b'{"code": "x", "mode": "submit", "seed": 1.5}',
            "body.seed: Input should be a valid integer",
        ),
        (b'{"code": "x", "mode": "submit", "seed": -1}', "body.seed: Input should be greater than"),
        # a Run draws no random cases: a seed there would be ignored, so it is refused
        (b'{"code": "x", "seed": 5}', "body.seed: only a Submit replays a seed"),
        (b'{"code": "x", "mode": "run", "seed": 0}', "body.seed: only a Submit replays a seed"),
    ],
)
def test_malformed_body_is_422_with_readable_detail(
    client: InProcessClient, fake_judge: FakeJudge, body: bytes, detail: str
) -> None:
    response = client.post(URL, content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"].startswith(detail)
    assert fake_judge.graded == []


def test_a_byte_order_mark_before_the_code_is_dropped(
    client: InProcessClient, fake_judge: FakeJudge
) -> None:
    # Pasted from a file some editor saved with one: Python, and the CLI, drop it.
    response = client.post(URL, json={"code": "\ufeffx = 1\n"})
    assert response.status_code == 200, response.text
    assert [code for _, code in fake_judge.graded] == ["x = 1\n"]


def test_an_integral_seed_written_with_a_fraction_is_that_seed(
    client: InProcessClient, fake_judge: FakeJudge
) -> None:
    # JSON Schema counts 1290.0 an integer; a client generated from the schema may send it.
    body = {"code": "x = 1\n", "mode": "submit", "seed": 1290.0}
    response = client.post(URL, json=body)
    assert response.status_code == 200, response.text
    assert fake_judge.seeds == [1290] and type(fake_judge.seeds[0]) is int
    too_big = client.post(URL, json={**body, "seed": 2.0**63})
    assert too_big.status_code == 422
    assert too_big.json()["detail"].startswith("body.seed: Input should be less than or equal")


def test_saturated_judge_is_503_with_retry_after(
    make_client: Callable[..., InProcessClient],
) -> None:
    client = make_client(SaturatedJudge())
    response = client.post(URL, json={"code": "x = 1"})
    assert response.status_code == 503
    assert response.headers["retry-after"] == "2"
    assert response.json() == {"detail": "The judge is busy; retry shortly."}


def test_a_bug_is_a_json_500_with_security_headers(
    make_client: Callable[..., InProcessClient], caplog: pytest.LogCaptureFixture
) -> None:
    client = make_client(BrokenJudge())
    response = client.post(URL, json={"code": "x = 1"})
    assert response.status_code == 500
    assert response.json() == {"detail": "Internal server error."}
    assert "boom" not in response.text
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "unhandled error on POST" in caplog.text


def test_graded_submissions_are_recorded(client: InProcessClient) -> None:
    client.post(URL, json={"code": "x = 1"})
    client.post("/api/exercises/add-more/submissions", json={"code": "y = 2"})
    client.post(URL, json={"code": "x" * (64 * 1024 + 1)})  # refused: not graded, not stored
    history = client.app.state.history
    history.flush()
    assert history.count() == 2
    assert history.count("add-numbers") == 1
    latest = history.recent(1)[0]
    assert latest["exercise_id"] == "add-more"
    assert latest["verdict"] == "accepted" and latest["passed"] == latest["total"] == 6
