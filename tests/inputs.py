"""Custom inputs the tests share: the worked examples as `/runs` inputs, and how to send one.

The tests of bad inputs write each as a change to one of these, so each row says only what is
wrong with it."""

from __future__ import annotations

from typing import Any

VERIFY_INPUT = {
    "draft_probs": [0.5, 0.5],
    "target_probs": [0.25, 0.5],
    "draft_tokens": [3, 4],
    "target_dist_next": None,
}
# The resample statement's worked example, with the draws it uses.
RESAMPLE_INPUT = {
    "p": [[0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]],
    "q": [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6]],
    "draft": [0, 2],
    "rng": {"scripted": [0.5, 0.8, 0.1]},
}


def nested(depth: int) -> Any:
    """0.5 inside ``depth`` lists: an array of that many dimensions."""
    value: Any = 0.5
    for _ in range(depth):
        value = [value]
    return value


def refused_detail(api: Any, exercise_url: str, given: Any) -> str:
    """POST ``given`` as a custom input (with code that never runs); asserts the 422 and
    returns its ``detail``."""
    response = api.post(f"{exercise_url}/runs", json={"code": "x = 1\n", "input": given})
    assert response.status_code == 422, response.text
    detail: str = response.json()["detail"]
    return detail
