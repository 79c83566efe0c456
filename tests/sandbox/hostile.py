"""Shared by the hostile test modules (``test_hostile_*.py``): hostile learner code against the
real judge, one test per threat.

Every submission is graded by one warm judge (zygote + confined children, the ``hostile_judge``
fixture of ``conftest.py``, shared by all the hostile modules) against the real exercise
"speculative-decoding-verify". Each test asserts the verdict *and* that nothing happened outside:
no file written, no connection made, no secret or reference code in the report, no process left
behind, the judge still grading correctly afterwards (``test_hostile_zygote.py``, run last).

Most hostile code runs only on the first case (``if draft_tokens == FIRST_TOKENS``) and falls
back to an honest implementation otherwise, so each test also shows that the harness kept
going: the first case gets its own verdict and the five others still pass. A hostile body that
is *not* stopped falls through to the honest answer, and its test fails.
"""

from __future__ import annotations

import os
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.catalog import Catalog, Exercise
from app.grading.judge import Judge
from app.schemas import Report, Status, Verdict
from tests.procfs import stat_fields

REPO = Path(__file__).resolve().parents[2]
EXERCISE_ID = "speculative-decoding-verify"
EXERCISE_DIR = REPO / "exercises" / EXERCISE_ID
CANARY = "judge-canary-5f1c0a77e2"  # set in the test process's environment, never in a report
SECRET = "judge-secret-93b47d1e06"  # in a world-readable file the learner's code tries to read
CUT_MARK = "[output cut: limit reached]"

CATALOG = Catalog.load()
EXERCISE = CATALOG.get(EXERCISE_ID)
assert EXERCISE is not None
FIRST_TOKENS = EXERCISE.cases[0].input["draft_tokens"]
LIMITS = EXERCISE.limits
# A runaway case costs its deadline plus the kill, the report and some slack for a busy box.
BOUNDED_S = LIMITS.time_ms / 1000 + 3.0

HONEST = """
def honest(draft_probs, target_probs, draft_tokens):
    np.random.seed(42)
    accepted = []
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        accept_prob = 1.0 if q == 0 else min(1.0, p / q)
        if np.random.uniform() < accept_prob:
            accepted.append(int(token))
        else:
            break
    return accepted, len(accepted)
"""
SIGNATURE = (
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):"
)
# Lines of the reference solution (its docstring, comments...) that no submission here contains:
# any of them in a report means the reference was read.
REFERENCE_MARKS = [
    line.strip()
    for line in EXERCISE.solution_code.splitlines()
    if len(line.strip()) >= 24 and line.strip() not in HONEST + SIGNATURE
]
assert REFERENCE_MARKS


def on_first_case(body: str, module: str = "") -> str:
    """A submission doing ``body`` on the first case and the honest thing on the others."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        "import numpy as np\n"
        + textwrap.dedent(module).strip("\n")
        + "\n"
        + HONEST
        + f"\n\n{SIGNATURE}\n"
        + f"    if draft_tokens == {FIRST_TOKENS!r}:\n{inner}\n"
        + "    return honest(draft_probs, target_probs, draft_tokens)\n"
    )


def whole(body: str) -> str:
    """A submission doing ``body`` on every case (e.g. returning a crafted value)."""
    inner = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 4)
    return "import numpy as np\n" + HONEST + f"\n\n{SIGNATURE}\n{inner}\n"


# -- processes ------------------------------------------------------------------------------


def process_table() -> dict[int, tuple[int, str, int]]:
    """pid -> (parent pid, state letter, CPU ticks used) for every process in /proc."""
    return {
        pid: (int(fields[1]), fields[0], int(fields[11]) + int(fields[12]))
        for pid, fields in stat_fields().items()
    }


def children(pid: int, table: dict[int, tuple[int, str, int]] | None = None) -> list[int]:
    """The living children of ``pid`` (a killed child not yet reaped is a zombie: dead)."""
    table = process_table() if table is None else table
    return [
        child for child, (parent, state, _) in table.items() if parent == pid and state not in "ZX"
    ]


def settled_children(
    zygote: int, workers: int, timeout: float = 2.0
) -> tuple[dict[int, tuple[int, str, int]], list[int]]:
    """The process table and the zygote's living children, once at most ``workers`` remain.

    A child is killed as its verdict is sent; the kernel may take a moment to tear it down.
    """
    deadline = time.monotonic() + timeout
    while True:
        table = process_table()
        kids = children(zygote, table)
        if len(kids) <= workers or time.monotonic() > deadline:
            return table, kids
        time.sleep(0.05)


def wait_for_no_children(pid: int, timeout: float = 3.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (found := children(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


# -- the environment canary -----------------------------------------------------------------


@contextmanager
def canary_in_environment() -> Iterator[None]:
    """``JUDGE_CANARY`` set to CANARY in the test process's environment, restored afterwards."""
    previous = os.environ.get("JUDGE_CANARY")
    os.environ["JUDGE_CANARY"] = CANARY
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("JUDGE_CANARY", None)
        else:
            os.environ["JUDGE_CANARY"] = previous


# -- grading --------------------------------------------------------------------------------


def grade(judge: Judge, code: str, exercise: Exercise = EXERCISE) -> tuple[Report, float]:
    """Grade, time it, and check that no secret of the trusted side got into the report."""
    started = time.monotonic()
    report = judge.grade(exercise, code)
    elapsed = time.monotonic() - started
    text = report.model_dump_json()
    for secret in (CANARY, SECRET, *REFERENCE_MARKS):
        if secret not in code:  # (the reference itself is graded once, at the end)
            assert secret not in text, f"{secret!r} leaked into the report"
    if str(REPO) not in code:  # the judge's own paths stay out of what the learner reads
        messages = [report.message] + [test.message for test in report.tests]
        assert not any(str(REPO) in (message or "") for message in messages), messages
    return report, elapsed


def assert_first_case_stopped(report: Report, verdict: Verdict, *needles: str) -> None:
    """The first case got ``verdict`` (message containing every needle); the others passed."""
    first, *rest = report.tests
    assert report.verdict == verdict, (report.verdict, first.message)
    assert report.status == Status.failed
    assert first.status in (Status.error, Status.failed)
    for needle in needles:
        assert needle in (first.message or ""), first.message
    assert [test.status for test in rest] == [Status.passed] * len(rest), [
        test.message for test in rest
    ]
    assert report.passed == report.total - 1


def assert_budget_spent_by_first_case(report: Report) -> None:
    """The first case used up the submission's time budget; every later case did not run and
    says which case spent it."""
    first, *rest = report.tests
    assert report.verdict == Verdict.time_limit_exceeded, (report.verdict, first.message)
    assert report.status == Status.failed
    assert first.status == Status.error
    assert "time limit exceeded" in (first.message or ""), first.message
    for test in rest:
        assert test.status == Status.error
        assert (test.message or "").startswith("not run"), test.message
        assert first.name in (test.message or ""), test.message
    assert report.passed == 0


def assert_nothing_ran(report: Report, verdict: Verdict, *needles: str) -> None:
    """The submission never reached its cases (compile error, refusal, module-level error)."""
    assert report.verdict == verdict, (report.verdict, report.message)
    assert report.status == Status.error
    assert report.passed == 0
    assert all(test.status == Status.error for test in report.tests)
    for needle in needles:
        assert needle in (report.message or ""), report.message


def dir_listing(path: Path) -> list[str]:
    return sorted(entry.name for entry in path.iterdir())
