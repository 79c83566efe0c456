"""Check rows from hand-made sandbox results: counts validated, verdicts counted, no crash."""

from __future__ import annotations

from app.grading.distribution import DistributionCheck, Pair, check_rows
from app.grading.reports import with_check_rows
from app.schemas import Report, Status, Verdict
from sandbox import CaseRun, ErrorInfo, Outcome, RunResult

PAIR = Pair("n", ((0.5, 0.5), (0.5, 0.5)), ((0.25, 0.75),), trials=100, seed=1)
CHECK = DistributionCheck(driver="", pairs=(PAIR,))
LIMITS = {"time": "too long", "memory": "too big", "output": "16 KB"}


def _tag(value: object) -> dict:
    if isinstance(value, dict):
        return {"t": "dict", "v": [[_tag(k), _tag(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return {"t": "list", "v": [_tag(x) for x in value]}
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    return {"t": "int", "v": value}


def _rows(value: object, outcome: Outcome = Outcome.returned) -> list:
    run = CaseRun(outcome=outcome, value=_tag(value), error=ErrorInfo("ValueError", "boom"))
    return check_rows(CHECK, RunResult(cases=[run]), LIMITS, exact_failed=False)


def test_sound_counts_give_a_verdict_and_a_chart() -> None:
    (row,) = _rows({"trials": 100, "first": [50, 50], "lengths": [50, 50], "draws": 150})
    assert row.status == Status.passed and row.chart is not None
    assert row.chart.observed == [0.5, 0.5]


def test_counts_that_do_not_add_up_are_refused() -> None:
    for forged in (
        {"trials": 100, "first": [50, 49], "lengths": [50, 50]},
        {"trials": 100, "first": [150, -50], "lengths": [50, 50]},
        {"trials": 99, "first": [50, 50], "lengths": [50, 50]},
        {"trials": 100, "first": [50, 50, 0], "lengths": [50, 50]},
        {"trials": 100, "first": [True, 99], "lengths": [50, 50]},
        [1, 2],
    ):
        (row,) = _rows(forged)
        assert row.status == Status.error and row.chart is None
        assert row.message == "the distribution check's counts did not add up; it could not judge"


def test_a_failing_step_is_worded_from_the_error() -> None:
    (row,) = _rows(None, Outcome.raised)
    assert row.status == Status.error
    assert row.message == "during the distribution check: ValueError: boom"


def test_check_rows_count_in_the_verdict() -> None:
    passed = Report(status=Status.passed, verdict=Verdict.accepted, passed=6, total=6, tests=[])
    (bad,) = _rows({"invalid": {"trial": 3, "reason": "not_list"}})
    assert (
        bad.message
        == "on trial 3 of the distribution check your step returned something other than a list"
    )
    merged = with_check_rows(passed, [bad], RunResult())
    assert (merged.status, merged.verdict, merged.passed, merged.total) == (
        Status.failed,
        Verdict.wrong_answer,
        6,
        7,
    )
    (crashed,) = _rows(None, Outcome.timeout)
    run = CaseRun(outcome=Outcome.timeout)
    merged = with_check_rows(passed, [crashed], RunResult(cases=[run]))
    assert merged.verdict == Verdict.time_limit_exceeded
    failed = Report(status=Status.failed, verdict=Verdict.runtime_error, passed=5, total=6)
    assert with_check_rows(failed, [bad], RunResult()).verdict == Verdict.runtime_error
