"""Check rows from hand-made sandbox results (merged as the judge merges a check's jobs): counts
validated, verdicts counted, no crash."""

from __future__ import annotations

from app.catalog import Catalog
from app.grading.distribution import DistributionCheck, Pair
from app.grading.distribution_jobs import Chunk, merged_result
from app.grading.distribution_verdict import check_rows
from app.grading.reports import grade_report
from app.grading.whole_checks import DistributionRuns
from app.schemas import CaseResult, Mode, Report, Status, Verdict
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
    merged = merged_result(CHECK, [((Chunk(0, 0, 100, 1),), RunResult(cases=[run]))])
    return check_rows(CHECK, merged, LIMITS, exact_failed=False)


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


def test_a_pair_left_unrun_by_an_earlier_ones_timeout_says_so() -> None:
    (row,) = _rows(None, Outcome.not_run)
    assert row.status == Status.error
    assert row.message is not None
    assert row.message.startswith("during the distribution check: not run, after an earlier")


def test_check_rows_count_in_the_verdict(catalog: Catalog) -> None:
    exercise = catalog.get("speculative-decoding-verify")
    assert exercise is not None
    check = DistributionRuns(exercise, CHECK)
    cases = [CaseResult(name=f"case {n}", status=Status.passed, input={}) for n in range(6)]
    passed = RunResult(cases=[CaseRun(outcome=Outcome.returned)] * 6)
    invalid = {"invalid": {"trial": 3, "reason": "not_list"}}
    (bad,) = _rows(invalid)
    assert (
        bad.message
        == "on trial 3 of the distribution check your step returned something other than a list"
    )

    def report(result: RunResult, rows: list[CaseResult], check_run: CaseRun) -> Report:
        check_result = check.merged([((Chunk(0, 0, 100, 1),), RunResult(cases=[check_run]))])
        return grade_report(
            exercise, result, rows, mode=Mode.submit, duration_ms=1.0, check=check,
            check_result=check_result,
        )  # fmt: skip

    merged = report(passed, cases, CaseRun(outcome=Outcome.returned, value=_tag(invalid)))
    assert merged.tests[-1] == bad
    assert (merged.status, merged.verdict, merged.passed, merged.total) == (
        Status.failed,
        Verdict.wrong_answer,
        6,
        7,
    )
    merged = report(passed, cases, CaseRun(outcome=Outcome.timeout))
    assert merged.verdict == Verdict.time_limit_exceeded
    error = CaseResult(name="case 5", status=Status.error, input={})
    raised = RunResult(cases=[CaseRun(outcome=Outcome.returned)] * 5 + [CaseRun(Outcome.raised)])
    failed = report(
        raised, [*cases[:5], error], CaseRun(outcome=Outcome.returned, value=_tag(invalid))
    )
    assert (failed.status, failed.verdict, failed.passed, failed.total) == (
        Status.failed,
        Verdict.runtime_error,
        5,
        7,
    )
