"""Values no well-behaved learner sends, over HTTP: each is a clear report or a 422, never a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR
from app.judge import Judge

GAMMA = "/api/exercises/speculative-decoding-choose-gamma"
VERIFY = "/api/exercises/speculative-decoding-verify"
GAMMA_INPUT = {"alpha": 0.8, "c": 0.05, "max_gamma": 16}
REPLACEMENT = "\ufffd"


@pytest.fixture
def api(make_client: Callable[..., InProcessClient], judge: Judge) -> InProcessClient:
    return make_client(judge, exercises_dir=EXERCISES_DIR)


# A lone surrogate is a str in Python but not encodable text: returned, printed, raised, as a
# dict key, at module level. The report shows U+FFFD in its place.
SURROGATE_CODES = [
    "def choose_gamma(a, c, m):\n    return chr(0xd800), 1.0\n",
    "def choose_gamma(a, c, m):\n    print(chr(0xd800))\n    return 1, 1.0\n",
    "def choose_gamma(a, c, m):\n    raise ValueError(chr(0xd800))\n",
    "raise ValueError(chr(0xdfff))\n",
    "def choose_gamma(a, c, m):\n    return {chr(0xd800): 1}, 1.0\n",
]


@pytest.mark.parametrize("code", SURROGATE_CODES)
@pytest.mark.parametrize("mode", ["run", "submit"])
def test_a_lone_surrogate_from_learner_code_is_reported_not_a_500(
    api: InProcessClient, code: str, mode: str
) -> None:
    response = api.post(f"{GAMMA}/submissions", json={"code": code, "mode": mode})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["verdict"] != "accepted"
    assert REPLACEMENT in response.text  # what the learner produced, shown as far as it can be


@pytest.mark.parametrize("code", SURROGATE_CODES)
def test_a_lone_surrogate_in_a_custom_run_is_reported_not_a_500(
    api: InProcessClient, code: str
) -> None:
    response = api.post(f"{GAMMA}/runs", json={"code": code, "input": GAMMA_INPUT})
    assert response.status_code == 200, response.text
    assert REPLACEMENT in response.text
