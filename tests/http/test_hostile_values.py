"""Values no well-behaved learner sends, over HTTP: each is a clear report or a 422, never a 500."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR
from app.grading.judge import Judge
from tests.inputs import RESAMPLE_INPUT, VERIFY_INPUT, nested, refused_detail

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


RESAMPLE = "/api/exercises/speculative-decoding-resample"
HUGE_NUMBERS = [
    (VERIFY, {**VERIFY_INPUT, "draft_tokens": [3, 10**400]}, "input.draft_tokens[1]"),
    (VERIFY, {**VERIFY_INPUT, "draft_probs": [0.5, 10**300]}, "input.draft_probs[1]"),
    (VERIFY, {**VERIFY_INPUT, "target_dist_next": [2**64]}, "input.target_dist_next[0]"),
    (
        RESAMPLE,
        {**RESAMPLE_INPUT, "q": [[0.5, 0.25, -(10**4000)], [0.2, 0.2, 0.6]]},
        "input.q[0][2]",
    ),
]


@pytest.mark.parametrize(("url", "given", "named"), HUGE_NUMBERS)
def test_an_integer_beyond_64_bits_is_a_422_naming_the_parameter(
    api: InProcessClient, url: str, given: dict[str, object], named: str
) -> None:
    assert refused_detail(api, url, given).startswith(named + ": integers must lie within")


def test_huge_floats_in_a_distribution_are_a_422_not_an_overflow(api: InProcessClient) -> None:
    given = {**RESAMPLE_INPUT, "p": [[1e308, 1e308, 0.0], [0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]}
    assert refused_detail(api, RESAMPLE, given) == (
        "input.p: row 0 is not a probability distribution: p[0][0] = 1e+308 is above 1"
    )


def test_a_row_with_a_negative_entry_names_the_entry_not_the_sum(api: InProcessClient) -> None:
    given = {**RESAMPLE_INPUT, "q": [[2.0, -1.0, 0.0], [0.2, 0.2, 0.6]]}
    assert refused_detail(api, RESAMPLE, given) == (
        "input.q: row 0 is not a probability distribution: q[0][1] = -1.0 is negative"
    )


def test_an_empty_draft_with_no_q_rows_is_graded_without_a_note_on_rows(
    api: InProcessClient,
) -> None:
    # gamma = 0: q has no rows at all, written [] (or {"empty": [0, V]}); p has the bonus row.
    given = {"p": [[0.25, 0.75]], "q": [], "draft": [], "rng": {"scripted": [0.5]}}
    code = "def speculative_step(p, q, draft, rng):\n    return [int(rng.random() >= 0.25)]\n"
    response = api.post(f"{RESAMPLE}/runs", json={"code": code, "input": given})
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert (test["status"], test["expected"], test["message"]) == ("pass", [1], None)


SCALAR_INPUTS = [
    ({**GAMMA_INPUT, "max_gamma": 10**15}, "input.max_gamma: expected an integer from 0 to 1000"),
    ({**GAMMA_INPUT, "max_gamma": -1}, "input.max_gamma: expected an integer from 0 to 1000"),
    ({**GAMMA_INPUT, "max_gamma": 2.5}, "input.max_gamma: expected an integer, got 2.5"),
    ({**GAMMA_INPUT, "max_gamma": True}, "input.max_gamma: expected an integer from 0 to 1000"),
    ({**GAMMA_INPUT, "max_gamma": "16"}, "input.max_gamma: expected an integer from 0 to 1000"),
    ({**GAMMA_INPUT, "alpha": 1.5}, "input.alpha: expected a number from 0 to 1, got 1.5"),
    ({**GAMMA_INPUT, "alpha": None}, "input.alpha: expected a number from 0 to 1, got null"),
    ({**GAMMA_INPUT, "alpha": [0.5]}, "input.alpha: expected a number from 0 to 1, got a list"),
    ({**GAMMA_INPUT, "c": -0.1}, "input.c: expected a number from 0 to 100, got -0.1"),
    ({**GAMMA_INPUT, "c": 1e300}, "input.c: expected a number from 0 to 100"),
]


@pytest.mark.parametrize(("given", "says"), SCALAR_INPUTS)
def test_choose_gamma_scalars_outside_their_declared_range_are_a_422(
    api: InProcessClient, given: dict[str, object], says: str
) -> None:
    detail = refused_detail(api, GAMMA, given)
    assert detail.startswith(says), detail


def test_choose_gamma_scalars_at_the_ends_of_their_ranges_run(api: InProcessClient) -> None:
    code = "def choose_gamma(alpha, c, max_gamma):\n    return 0, 1.0\n"
    given = {"alpha": 1, "c": 100, "max_gamma": 1000}  # ints where floats are due, too
    response = api.post(f"{GAMMA}/runs", json={"code": code, "input": given})
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert test["expected"] == [0, 1.0] and test["status"] == "pass"


def test_an_integral_number_written_with_a_fraction_is_the_integer_it_is(
    api: InProcessClient,
) -> None:
    # JSON Schema counts 2.0 an integer: the learner's function receives the int 2, and a
    # generator's seed 7.0 is the seed 7.
    code = "def choose_gamma(alpha, c, g):\n    return (g if type(g) is int else -1), 1.0\n"
    given = {"alpha": 0.8, "c": 0.05, "max_gamma": 2.0}
    response = api.post(f"{GAMMA}/runs", json={"code": code, "input": given})
    assert response.status_code == 200, response.text
    (test,) = response.json()["tests"]
    assert test["input"]["max_gamma"] == 2 and test["actual"][0] == 2
    code = "def speculative_step(p, q, draft, rng):\n    return [int(rng.random() * 1000)]\n"
    given = {**RESAMPLE_INPUT, "rng": {"seed": 7.0}}
    seeded = api.post(
        f"{RESAMPLE}/runs", json={"code": code, "input": {**given, "rng": {"seed": 7}}}
    )
    fractional = api.post(f"{RESAMPLE}/runs", json={"code": code, "input": given})
    assert fractional.status_code == 200, fractional.text
    (mine,), (theirs,) = fractional.json()["tests"], seeded.json()["tests"]
    assert mine["input"]["rng"] == {"seed": 7} and mine["actual"] == theirs["actual"]


ARRAYS_OF_THE_WRONG_RANK = [
    ({**RESAMPLE_INPUT, "q": nested(65)}, "input.q"),
    ({**RESAMPLE_INPUT, "q": nested(3)}, "input.q"),
    ({**RESAMPLE_INPUT, "p": [0.5, 0.5]}, "input.p: expected a 2-dimensional array"),
    ({**RESAMPLE_INPUT, "q": {"empty": [0]}}, "input.q"),
]


@pytest.mark.parametrize(("given", "says"), ARRAYS_OF_THE_WRONG_RANK)
def test_an_array_of_the_wrong_rank_is_a_422_naming_it(
    api: InProcessClient, given: dict[str, object], says: str
) -> None:
    detail = refused_detail(api, RESAMPLE, given)
    assert detail.startswith(says), detail


def test_a_very_deep_input_is_refused_cleanly(api: InProcessClient) -> None:
    raw = '{"code": "x = 1", "input": {"p": ' + "[" * 3000 + "]" * 3000 + "}}"
    response = api.post(
        f"{RESAMPLE}/runs", content=raw, headers={"content-type": "application/json"}
    )
    assert response.status_code in (400, 422), response.text
    assert "detail" in response.json()


def _verify_solution() -> str:
    return (EXERCISES_DIR / "speculative-decoding-verify" / "solution.py").read_text()


def test_correct_code_on_the_largest_legal_input_is_not_said_to_modify_it(
    api: InProcessClient,
) -> None:
    rows = [[0.0] * 1000 for _ in range(19)]  # with the rest, just under the 20000 values
    given = {**VERIFY_INPUT, "target_dist_next": rows, "draft_tokens": [3, 2**63 - 1]}
    response = api.post(f"{VERIFY}/runs", json={"code": _verify_solution(), "input": given})
    assert response.status_code == 200, response.text
    body = response.json()
    (test,) = body["tests"]
    assert body["verdict"] == "accepted" and test["message"] is None, test["message"]


def test_an_input_past_what_the_mutation_check_can_see_is_a_422(api: InProcessClient) -> None:
    rows = [[0.0] * 1000 for _ in range(20)]
    given = {**VERIFY_INPUT, "target_dist_next": rows}
    response = api.post(f"{VERIFY}/runs", json={"code": _verify_solution(), "input": given})
    assert response.status_code == 422
    assert response.json()["detail"].startswith("input.target_dist_next[19]: the input holds more")


def test_text_is_legal_up_to_what_the_sandbox_shows_back_whole(api: InProcessClient) -> None:
    code = _verify_solution()
    fits = api.post(
        f"{VERIFY}/runs",
        json={"code": code, "input": {**VERIFY_INPUT, "target_dist_next": "x" * 2000}},
    ).json()
    assert fits["verdict"] == "accepted" and fits["tests"][0]["message"] is None
    over = api.post(
        f"{VERIFY}/runs",
        json={"code": code, "input": {**VERIFY_INPUT, "target_dist_next": "x" * 2001}},
    )
    assert over.status_code == 422
    assert (
        over.json()["detail"] == "input.target_dist_next: 2001 characters; at most 2000 are allowed"
    )


def test_an_argument_grown_past_the_snapshot_is_modified_not_unchecked(
    api: InProcessClient,
) -> None:
    """Growing an input past what the judge can show hid an earlier change of it (a red-team
    round: logits overwritten, then extended, passed every case with a note)."""
    code = _verify_solution().replace(
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):",
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    target_dist_next.extend([0.0] * 30000)",
    )
    assert "extend" in code
    given = {**VERIFY_INPUT, "target_dist_next": [0.5]}
    body = api.post(f"{VERIFY}/runs", json={"code": code, "input": given}).json()
    (test,) = body["tests"]
    assert body["verdict"] == "wrong_answer" and test["status"] == "fail"
    assert test["message"] == (
        "your function modified its argument target_dist_next (afterwards it was too large for "
        "the judge to show); the function must not change its inputs"
    )
