"""The JSON contract of docs/architecture.md, in process, with a fake judge."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from asgi_client import InProcessClient
from http_fakes import SECRET_EXPECTED, SECRET_SOLUTION

SUMMARY_KEYS = {"id": str, "title": str, "difficulty": str, "summary": str}
DETAIL_KEYS = {
    "id": str,
    "title": str,
    "difficulty": str,
    "summary": str,
    "section": str,
    "statement": str,
    "starter_code": str,
    "entry_point": str,
    "related": list,
    "tests": list,
    "submit_cases": int,
    "hint_count": int,
    "limits": dict,
}


def assert_shape(value: dict[str, Any], keys: dict[str, type]) -> None:
    assert set(value) == set(keys)
    for key, kind in keys.items():
        assert isinstance(value[key], kind), (key, value[key])
        assert not isinstance(value[key], bool) or kind is bool, key


PRIVATE_KEYS = {"solution", "solution_code", "expected", "helpers_code", "cases", "folder"}


def walk(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, scalar) pair of a JSON document; list items get the key ''."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, None
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)
    else:
        yield "", value


def test_list_has_the_contract_shape(client: InProcessClient) -> None:
    response = client.get("/api/exercises")
    assert response.status_code == 200
    body = response.json()
    assert [item["id"] for item in body] == ["add-more", "add-numbers"]
    for item in body:
        assert_shape(item, SUMMARY_KEYS)
    assert body[1] == {
        "id": "add-numbers",
        "title": "Title of add-numbers",
        "difficulty": "easy",
        "summary": "Summary of add-numbers.",
    }


def test_detail_has_the_contract_shape(client: InProcessClient) -> None:
    body = client.get("/api/exercises/add-numbers").json()
    assert_shape(body, DETAIL_KEYS)
    assert body["entry_point"] == "add"
    assert body["hint_count"] == 3
    assert body["related"] == ["add-more"]
    assert body["starter_code"] == "def add(a, b):\n    return 0\n"
    assert body["statement"].startswith("# add-numbers")
    assert_shape(body["limits"], {"time_ms": int, "memory_mb": int})
    assert len(body["tests"]) == 6
    for case in body["tests"]:
        assert set(case) == {"name", "input"}
        assert isinstance(case["name"], str)
    assert body["tests"][1] == {"name": "case 1", "input": {"a": 1, "b": 2}}


@pytest.mark.parametrize(
    "path",
    [
        "/api/exercises",
        "/api/exercises/add-numbers",
        "/api/exercises/add-more",
        "/api/exercises/add-numbers/hints/1",
        "/api/health",
    ],
)
def test_no_public_response_leaks_solution_or_expected(client: InProcessClient, path: str) -> None:
    body = client.get(path).json()
    for key, value in walk(body):
        assert key not in PRIVATE_KEYS, key
        if isinstance(value, str):
            assert SECRET_SOLUTION not in value and SECRET_EXPECTED not in value, value


def test_unknown_exercise_is_404_json(client: InProcessClient) -> None:
    for path in ("/api/exercises/nope", "/api/exercises/nope/hints/1"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.headers["content-type"] == "application/json"
        assert response.json() == {"detail": "No exercise with id 'nope'."}


def test_unknown_exercise_submission_is_404(client: InProcessClient) -> None:
    response = client.post("/api/exercises/nope/submissions", json={"code": "x = 1"})
    assert response.status_code == 404
    assert "nope" in response.json()["detail"]


def test_hints_one_to_n(client: InProcessClient) -> None:
    for exercise_id, total in (("add-numbers", 3), ("add-more", 4)):
        for n in range(1, total + 1):
            response = client.get(f"/api/exercises/{exercise_id}/hints/{n}")
            assert response.status_code == 200
            assert response.json() == {
                "index": n,
                "total": total,
                "text": f"Hint number {n} for {exercise_id}.",
            }


@pytest.mark.parametrize("n", ["0", "4", "-1", "999999999999999999999"])
def test_hints_outside_the_range_are_404(client: InProcessClient, n: str) -> None:
    response = client.get(f"/api/exercises/add-numbers/hints/{n}")
    assert response.status_code == 404
    assert response.json()["detail"].startswith(f"Hint {n} does not exist")


def test_non_integer_hint_is_422_with_readable_detail(client: InProcessClient) -> None:
    response = client.get("/api/exercises/add-numbers/hints/two")
    assert response.status_code == 422
    assert response.json()["detail"].startswith("path.n: Input should be a valid integer")


def test_unknown_route_is_404_json(client: InProcessClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found"}


def test_wrong_method_is_405_json(client: InProcessClient) -> None:
    response = client.delete("/api/exercises")
    assert response.status_code == 405
    assert response.json() == {"detail": "Method Not Allowed"}
    assert response.headers["allow"] == "GET"
    assert client.get("/api/exercises/add-numbers/submissions").status_code == 405


def test_health_reports_layers_and_pool(client: InProcessClient) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert body["sandbox"]["seccomp"] is True
    assert all(isinstance(v, bool) for v in body["sandbox"].values())
    assert body["pool"]["workers"] == 2
