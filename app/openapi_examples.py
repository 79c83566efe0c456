"""The examples the API reference (OpenAPI, /docs) shows: real answers of the judge for one of
its exercises, so a client that copies one gets what the example says.

``tests/http/test_openapi_examples.py`` grades the example code again and compares, so an
example that drifts from the exercise or from the grader fails there.
"""

from __future__ import annotations

from typing import Any

EXERCISE_ID = "sampling-inverse-cdf"
# A learner's slip the exercise teaches: `<=` where the running sum must be strictly above u,
# and len(probs) - 1 on round-off (a token of probability 0 there).
CODE = (
    "def sample_token(probs, rng):\n"
    "    u = rng.random()\n"
    "    total = 0.0\n"
    "    for token, p in enumerate(probs):\n"
    "        total += p\n"
    "        if u <= total:\n"
    "            return token\n"
    "    return len(probs) - 1\n"
)
CUSTOM_INPUT: dict[str, Any] = {"probs": [0.5, 0.5], "rng": {"scripted": [0.5]}}
# The 422 of an input that does not fit the parameters: probs given as a string.
BAD_INPUT = "input.probs: expected a list, got a string"
HINT: dict[str, Any] = {
    "index": 1,
    "total": 5,
    "text": "Lay the probabilities end to end on [0, 1): token 0 gets the first piece, of "
    "length probs[0], token 1 the next, and so on. One uniform number u lands in "
    "exactly one piece, and that piece's token is the sample. Draw u once, with "
    "rng.random(), before you look at any token.",
}
NO_SUCH_HINT = "Hint 6 does not exist: this exercise has 5 hints."

SUMMARIES: list[dict[str, Any]] = [
    {
        "id": "sampling-inverse-cdf",
        "title": "Sampling a token: the inverse CDF",
        "difficulty": "easy",
        "summary": "Draw one token from a distribution with one uniform number: the running "
        "sums and the interval the draw falls in.",
    },
    {
        "id": "top-k-sampling",
        "title": "Top-k sampling with a temperature",
        "difficulty": "medium",
        "summary": "Keep the k most likely tokens, soften them with a temperature, and draw "
        "one: ties at the cut, renormalisation, the walk by token id.",
    },
]
# The statement cut to its first paragraph; the rest is the exercise's own.
EXERCISE: dict[str, Any] = {
    "id": "sampling-inverse-cdf",
    "title": "Sampling a token: the inverse CDF",
    "difficulty": "easy",
    "summary": "Draw one token from a distribution with one uniform number: the running "
    "sums and the interval the draw falls in.",
    "section": "LLM Generation & Decoding",
    "statement": "A language model ends every step with a distribution over its vocabulary: "
    "one probability per\n"
    "token id. Generating text means **drawing** one token from it, and every "
    "sampler in this section\n"
    "(temperature, top-k, top-p, and the resampling inside speculative "
    "decoding) ends with the same\n"
    "move: turn one uniform random number into a token. This exercise is that "
    "move.",
    "starter_code": "def sample_token(probs, rng):\n"
    '    """Draw one token id from the distribution ``probs`` by '
    "inverse-CDF sampling.\n"
    "\n"
    "    probs: list of V floats >= 0 that add up to 1 (up to round-off)\n"
    "    rng:   a NumPy random Generator; draw exactly one number with "
    "rng.random()\n"
    "\n"
    "    Returns the token id (an int from 0 to V - 1) whose slice of [0, "
    "1) holds the draw.\n"
    '    """\n'
    "    # TODO: draw u once; add the probabilities up in token order and "
    "return the first token\n"
    "    # whose running sum is above u. If round-off leaves every sum at "
    "or below u, return the\n"
    "    # last token with a probability above 0.\n"
    "    return -1\n",
    "entry_point": "sample_token",
    "related": ["top-k-sampling", "top-p-sampling", "speculative-decoding-resample"],
    "tests": [
        {
            "name": "worked example: u = 0.62 falls in [0.5, 0.8), token 1",
            "input": {"probs": [0.5, 0.3, 0.2], "rng": {"scripted": [0.62]}},
        },
        {
            "name": "tie: u = 0.5 is exactly a running sum, so it belongs to the next token",
            "input": {"probs": [0.5, 0.5], "rng": {"scripted": [0.5]}},
        },
        {
            "name": "a token of probability 0 is never returned, even when u = 0.0",
            "input": {"probs": [0.0, 0.25, 0.75], "rng": {"scripted": [0.0]}},
        },
        {
            "name": "round-off: no running sum exceeds u, so the last token of positive "
            "probability",
            "input": {"probs": [0.3, 0.3, 0.3999999999, 0.0], "rng": {"scripted": [0.99999999995]}},
        },
        {
            "name": "seeded generator: exactly one draw, from the rng you were given",
            "input": {"probs": [0.1, 0.25, 0.05, 0.3, 0.2, 0.1], "rng": {"seed": 18}},
        },
        {
            "name": "seeded generator: zeros between tokens, walked from token 0 up",
            "input": {"probs": [0.0, 0.2, 0.0, 0.35, 0.1, 0.0, 0.25, 0.1], "rng": {"seed": 7}},
        },
    ],
    "submit_cases": 28,
    "hint_count": 5,
    "limits": {"time_ms": 1000, "memory_mb": 256},
}
RUN_REPORT: dict[str, Any] = {
    "status": "fail",
    "mode": "run",
    "seed": None,
    "replayed_seed": None,
    "verdict": "wrong_answer",
    "message": None,
    "passed": 3,
    "total": 6,
    "duration_ms": 34.067,
    "tests": [
        {
            "name": "worked example: u = 0.62 falls in [0.5, 0.8), token 1",
            "status": "pass",
            "group": "example",
            "hint": 1,
            "input": {"probs": [0.5, 0.3, 0.2], "rng": {"scripted": [0.62]}},
            "expected": 1,
            "actual": 1,
            "message": None,
            "output": None,
            "duration_ms": 0.114,
            "chart": None,
        },
        {
            "name": "tie: u = 0.5 is exactly a running sum, so it belongs to the next token",
            "status": "fail",
            "group": "example",
            "hint": 2,
            "input": {"probs": [0.5, 0.5], "rng": {"scripted": [0.5]}},
            "expected": 1,
            "actual": 0,
            "message": (
                "your return value: you returned 0 but the reference returned 1. What the "
                "reference did: draw 1 gave u = 0.5; running sums over probs [0.5, 1]; u falls in "
                "[0.5, 1): token 1."
            ),
            "output": None,
            "duration_ms": 0.01,
            "chart": None,
        },
        {
            "name": "a token of probability 0 is never returned, even when u = 0.0",
            "status": "fail",
            "group": "example",
            "hint": 2,
            "input": {"probs": [0.0, 0.25, 0.75], "rng": {"scripted": [0.0]}},
            "expected": 1,
            "actual": 0,
            "message": (
                "your return value: you returned 0 but the reference returned 1. What the "
                "reference did: draw 1 gave u = 0; running sums over probs [0, 0.25, 1]; u falls "
                "in [0, 0.25): token 1."
            ),
            "output": None,
            "duration_ms": 0.008,
            "chart": None,
        },
        {
            "name": "round-off: no running sum exceeds u, so the last token of positive "
            "probability",
            "status": "fail",
            "group": "example",
            "hint": 5,
            "input": {"probs": [0.3, 0.3, 0.3999999999, 0.0], "rng": {"scripted": [0.99999999995]}},
            "expected": 2,
            "actual": 3,
            "message": (
                "your return value: you returned 3 but the reference returned 2. What the "
                "reference did: draw 1 gave u = 0.99999999995; running sums over probs [0.3, 0.6, "
                "1, 1], the last 0.9999999999 by round-off; no running sum exceeds u, so the last "
                "token of probability above 0: token 2."
            ),
            "output": None,
            "duration_ms": 0.019,
            "chart": None,
        },
        {
            "name": "seeded generator: exactly one draw, from the rng you were given",
            "status": "pass",
            "group": "example",
            "hint": 3,
            "input": {"probs": [0.1, 0.25, 0.05, 0.3, 0.2, 0.1], "rng": {"seed": 18}},
            "expected": 2,
            "actual": 2,
            "message": None,
            "output": None,
            "duration_ms": 0.032,
            "chart": None,
        },
        {
            "name": "seeded generator: zeros between tokens, walked from token 0 up",
            "status": "pass",
            "group": "example",
            "hint": 4,
            "input": {"probs": [0.0, 0.2, 0.0, 0.35, 0.1, 0.0, 0.25, 0.1], "rng": {"seed": 7}},
            "expected": 4,
            "actual": 4,
            "message": None,
            "output": None,
            "duration_ms": 0.009,
            "chart": None,
        },
    ],
}
CUSTOM_REPORT: dict[str, Any] = {
    "status": "fail",
    "mode": "custom",
    "seed": None,
    "replayed_seed": None,
    "verdict": "wrong_answer",
    "message": None,
    "passed": 0,
    "total": 1,
    "duration_ms": 23.845,
    "tests": [
        {
            "name": "your input",
            "status": "fail",
            "group": "custom",
            "hint": None,
            "input": {"probs": [0.5, 0.5], "rng": {"scripted": [0.5]}},
            "expected": 1,
            "actual": 0,
            "message": (
                "your return value: you returned 0 but the reference returned 1. What the "
                "reference did: draw 1 gave u = 0.5; running sums over probs [0.5, 1]; u falls in "
                "[0.5, 1): token 1."
            ),
            "output": None,
            "duration_ms": 0.087,
            "chart": None,
        }
    ],
}
