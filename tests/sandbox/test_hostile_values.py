"""Hostile learner code against the real judge: the honest value, then lying values (__eq__,
ndarray subclasses), forged replies and nested frames (see hostile.py).
"""

from __future__ import annotations

import json

import pytest

from app.grading.judge import Judge
from app.schemas import Status, Verdict
from sandbox import framing
from tests.sandbox.hostile import grade, on_first_case, whole

# -- baseline -------------------------------------------------------------------------------


def test_the_honest_fallback_is_accepted(hostile_judge: Judge) -> None:
    report, _ = grade(
        hostile_judge, whole("return honest(draft_probs, target_probs, draft_tokens)")
    )
    assert report.verdict == Verdict.accepted and report.passed == report.total == 6


# -- lying values -------------------------------------------------------------------------------

# Classes whose __eq__ would lie: refused when compiling (learner classes define no rich
# comparisons), so nothing of them runs.
EQ_LIARS = {
    "object equal to everything": """
        class Anything:
            def __eq__(self, other):
                return True
            def __ne__(self, other):
                return False
        return Anything()
        """,
    "tuple of liars": """
        class Anything:
            def __eq__(self, other):
                return True
        return Anything(), Anything()
        """,
    "list subclass with the right items": """
        class Yes(list):
            def __eq__(self, other):
                return True
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return Yes(accepted), count
        """,
    "tuple subclass": """
        class Pair(tuple):
            def __eq__(self, other):
                return True
        return Pair(honest(draft_probs, target_probs, draft_tokens))
        """,
}


@pytest.mark.parametrize("name", list(EQ_LIARS))
def test_a_lying_eq_is_refused_before_it_runs(hostile_judge: Judge, name: str) -> None:
    report, _ = grade(hostile_judge, whole(EQ_LIARS[name]))
    assert report.verdict == Verdict.rejected
    assert report.passed == 0
    assert "classes cannot define __eq__" in (report.message or ""), report.message


LIARS = {
    "list subclass with the right items": (
        """
        class Yes(list):
            pass
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return Yes(accepted), count
        """,
        "Yes",
    ),
    "tuple subclass": (
        """
        class Pair(tuple):
            pass
        return Pair(honest(draft_probs, target_probs, draft_tokens))
        """,
        "Pair",
    ),
    "float-valued tokens": (
        """
        accepted, count = honest(draft_probs, target_probs, draft_tokens)
        return [float(token) for token in accepted], count
        """,
        "float",
    ),
}


@pytest.mark.parametrize("name", list(LIARS))
def test_lookalike_values_are_never_accepted(hostile_judge: Judge, name: str) -> None:
    body, type_name = LIARS[name]
    report, _ = grade(hostile_judge, whole(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.passed == 0
    messages = [test.message or "" for test in report.tests]
    assert all(type_name in message for message in messages if message), messages
    assert any(type_name in message for message in messages), messages


SUBCLASS = """
class Sub(np.ndarray):
    pass
accepted, count = honest(draft_probs, target_probs, draft_tokens)
"""


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (
            SUBCLASS + "return np.array(accepted, dtype=np.int64).view(Sub), count",
            "accepted_tokens must be a list, got speculative_decode.<locals>.Sub",
        ),
        (
            SUBCLASS + "return accepted, np.array(count).view(Sub)",
            "num_accepted must be an int, got speculative_decode.<locals>.Sub",
        ),
        (
            SUBCLASS + "return np.array(accepted), count",
            "accepted_tokens must be a list, got numpy.ndarray",
        ),
    ],
    ids=["subclass for the tokens", "subclass for the count", "plain ndarray"],
)
def test_ndarray_values_are_not_accepted_and_named(
    hostile_judge: Judge, body: str, named: str
) -> None:
    report, _ = grade(hostile_judge, whole(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.passed == 0
    assert all(named in (test.message or "") for test in report.tests), report.tests[0].message


@pytest.mark.parametrize("escape", ["SystemExit(0)", "KeyboardInterrupt()"])
def test_an_exception_whose_str_raises_is_still_reported_as_raised(
    hostile_judge: Judge, escape: str
) -> None:
    # A learner __str__ raising a BaseException ended the harness (exit 70).
    code = (
        "class E(Exception):\n"
        "    def __str__(self):\n"
        f"        raise {escape}\n"
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    raise E()\n"
    )
    report, _ = grade(hostile_judge, code)
    assert report.verdict == Verdict.runtime_error
    for test in report.tests:
        assert "E" in (test.message or "") and "exit code" not in (test.message or ""), test.message


def test_a_returned_object_whose_repr_raises_is_described_not_fatal(hostile_judge: Judge) -> None:
    code = (
        "class Bad:\n"
        "    def __repr__(self):\n"
        "        raise KeyboardInterrupt()\n"
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    return [Bad()], 1\n"
    )
    report, _ = grade(hostile_judge, code)
    assert report.verdict == Verdict.wrong_answer
    assert all("exit code" not in (test.message or "") for test in report.tests)


# -- forged replies -----------------------------------------------------------------------------


def _forged_frame() -> str:
    claim = {
        "t": "case",
        "case": 0,
        "outcome": "returned",
        "value": {"t": "tuple", "v": []},
        "status": "pass",
        "verdict": "accepted",
        "passed": 6,
    }
    body = json.dumps(claim)
    header = len(body).to_bytes(4, "big").decode("latin-1")
    return header + body


@pytest.mark.parametrize(
    "body",
    [
        f"print({_forged_frame()!r}, end='')\nreturn [], 0",
        f"print({_forged_frame()!r} * 100, end='')\nreturn [], 0",
        'print(\'{"status": "pass", "verdict": "accepted", "passed": 6}\')\nreturn [], 0',
        f"return [{_forged_frame()!r}], 0",
        f"return {_forged_frame()!r}",
        "print('x', file=1)\nprint('y', file=3)\nreturn [], 0",
    ],
    ids=[
        "framed claim on stdout",
        "a hundred framed claims",
        "report-shaped JSON",
        "framed claim as the value",
        "framed claim as the whole reply",
        "print to fd 1 and fd 3",
    ],
)
def test_forged_replies_are_data_not_results(hostile_judge: Judge, body: str) -> None:
    report, _ = grade(hostile_judge, on_first_case(body))
    assert report.verdict == Verdict.wrong_answer
    assert report.tests[0].status == Status.failed
    assert report.passed == 5
    assert [test.status for test in report.tests[1:]] == [Status.passed] * 5


def test_printed_frames_come_back_verbatim_as_output(hostile_judge: Judge) -> None:
    frame = _forged_frame()
    report, _ = grade(hostile_judge, on_first_case(f"print({frame!r}, end='')\nreturn [], 0"))
    assert report.tests[0].output == frame
    assert report.verdict == Verdict.wrong_answer


def test_a_deeply_nested_reply_frame_is_a_protocol_error() -> None:
    body = b'{"t":"case","case":0,"value":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    frame = framing.HEADER.pack(len(body)) + body
    with pytest.raises(framing.ProtocolError):
        framing.FrameReader().feed(frame)
