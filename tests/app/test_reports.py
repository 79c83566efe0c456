"""Report building from raw sandbox results made by hand: no sandbox, only the trusted side.

Each test writes down what a child could send (a ``RunResult``) and checks the report a learner
gets: verdicts in case order, setup failures, an exhausted generator, a case that never ran.
"""

from __future__ import annotations

import signal

import pytest

from app.catalog import Catalog, Exercise
from app.grading.reports import build_report
from app.schemas import Status, Verdict
from sandbox import CaseRun, ErrorInfo, Outcome, RunResult, SetupFailure, SetupKind


@pytest.fixture(scope="module")
def verify(catalog: Catalog) -> Exercise:
    exercise = catalog.get("speculative-decoding-verify")
    assert exercise is not None
    return exercise


@pytest.fixture(scope="module")
def resample(catalog: Catalog) -> Exercise:
    exercise = catalog.get("speculative-decoding-resample")
    assert exercise is not None
    return exercise


def tagged(value: object) -> dict[str, object]:
    """The child's tag for a plain Python value (ints, lists and tuples are enough here)."""
    if isinstance(value, bool) or value is None:
        raise TypeError(value)
    if isinstance(value, int):
        return {"t": "int", "v": value}
    if isinstance(value, list | tuple):
        return {"t": type(value).__name__, "v": [tagged(item) for item in value]}
    raise TypeError(value)


def expected_run(exercise: Exercise, index: int) -> CaseRun:
    """The run of a correct solution on case ``index``: its stored expectation, as returned."""
    expected = exercise.cases[index].expected
    value = expected["value"]
    if exercise.returns.startswith("tuple"):
        value = (value[0], value[1])
    return CaseRun(outcome=Outcome.returned, value=tagged(value), draws=expected.get("draws"))


def test_every_case_as_expected_is_accepted(verify: Exercise) -> None:
    runs = [expected_run(verify, i) for i in range(len(verify.cases))]
    report = build_report(verify, RunResult(cases=runs), 3.0)
    assert (report.status, report.verdict) == (Status.passed, Verdict.accepted)
    assert report.passed == report.total == len(verify.cases)
    assert [test.name for test in report.tests] == [case.name for case in verify.cases]


def test_the_first_non_passing_case_decides_the_verdict(verify: Exercise) -> None:
    runs = [expected_run(verify, i) for i in range(len(verify.cases))]
    runs[1] = CaseRun(outcome=Outcome.returned, value=tagged(([], 0)))
    runs[3] = CaseRun(outcome=Outcome.timeout, error=ErrorInfo(type="Sandbox", message="slow"))
    report = build_report(verify, RunResult(cases=runs), 3.0)
    assert report.verdict == Verdict.wrong_answer  # case 2 fails before case 4 times out
    assert [test.status for test in report.tests][:4] == [
        Status.passed,
        Status.failed,
        Status.passed,
        Status.error,
    ]
    assert report.passed == len(verify.cases) - 2


def test_a_time_limit_before_any_wrong_answer_is_the_verdict(verify: Exercise) -> None:
    runs = [expected_run(verify, i) for i in range(len(verify.cases))]
    runs[0] = CaseRun(outcome=Outcome.timeout, error=ErrorInfo(type="Sandbox", message="slow"))
    report = build_report(verify, RunResult(cases=runs), 3.0)
    assert report.verdict == Verdict.time_limit_exceeded
    assert report.tests[0].message and str(verify.limits.time_ms) in report.tests[0].message


def test_an_exhausted_generator_is_a_wrong_answer_with_both_counts(resample: Exercise) -> None:
    runs = [expected_run(resample, i) for i in range(len(resample.cases))]
    scripted = next(i for i, case in enumerate(resample.cases) if "scripted" in case.input["rng"])
    wanted = resample.cases[scripted].expected["draws"]
    runs[scripted] = CaseRun(
        outcome=Outcome.exhausted,
        error=ErrorInfo(type="RandomStreamExhausted", message="no numbers left"),
        draws=wanted + 1,
    )
    report = build_report(resample, RunResult(cases=runs), 3.0)
    assert report.verdict == Verdict.wrong_answer
    row = report.tests[scripted]
    assert row.status == Status.failed
    assert row.message and str(wanted) in row.message


@pytest.mark.parametrize(
    ("kind", "verdict"),
    [
        (SetupKind.compile, Verdict.compile_error),
        (SetupKind.refused, Verdict.rejected),
        (SetupKind.module, Verdict.runtime_error),
        (SetupKind.missing_entry, Verdict.runtime_error),
        (SetupKind.timeout, Verdict.time_limit_exceeded),
        (SetupKind.memory, Verdict.memory_limit_exceeded),
        (SetupKind.output, Verdict.output_limit_exceeded),
        (SetupKind.crashed, Verdict.runtime_error),
    ],
)
def test_a_setup_failure_runs_nothing_and_names_the_line(
    verify: Exercise, kind: SetupKind, verdict: Verdict
) -> None:
    setup = SetupFailure(kind=kind, message="something is wrong", line=7)
    report = build_report(verify, RunResult(setup=setup), 1.0)
    assert (report.status, report.verdict) == (Status.error, verdict)
    assert report.message and "line 7" in report.message and "something is wrong" in report.message
    assert report.passed == 0 and all(test.status == Status.error for test in report.tests)


def test_cases_the_sandbox_never_reported_are_errors_not_passes(verify: Exercise) -> None:
    runs = [expected_run(verify, i) for i in range(2)]
    report = build_report(verify, RunResult(cases=runs), 1.0)
    assert report.passed == 2 and report.status == Status.failed
    assert report.verdict == Verdict.runtime_error
    assert all(test.status == Status.error for test in report.tests[2:])


def test_cases_after_the_one_that_spent_the_budget_say_they_did_not_run(verify: Exercise) -> None:
    runs = [expected_run(verify, 0), CaseRun(outcome=Outcome.timeout)]
    runs += [CaseRun(outcome=Outcome.not_run)] * (len(verify.cases) - 2)
    report = build_report(verify, RunResult(cases=runs), 900.0)
    assert report.verdict == Verdict.time_limit_exceeded
    assert [test.status for test in report.tests[:2]] == [Status.passed, Status.error]
    assert "time limit exceeded" in (report.tests[1].message or "")
    spender = verify.cases[1].name
    for test in report.tests[2:]:
        assert test.status == Status.error and test.actual is None
        assert (test.message or "").startswith(f'not run: case "{spender}" used up')


def test_cases_after_a_full_reply_budget_say_which_case_filled_it(verify: Exercise) -> None:
    runs = [expected_run(verify, 0)]
    runs.append(CaseRun(outcome=Outcome.output, error=ErrorInfo(type="Sandbox", message="big")))
    runs += [CaseRun(outcome=Outcome.not_run)] * (len(verify.cases) - 2)
    report = build_report(verify, RunResult(cases=runs), 1.0)
    assert report.verdict == Verdict.output_limit_exceeded
    filled_by = verify.cases[1].name
    for test in report.tests[2:]:
        assert test.status == Status.error
        assert test.message is not None
        assert f'case "{filled_by}" filled the room for this submission' in test.message
        assert f"{verify.limits.reply_bytes // 1024} KB" in test.message


@pytest.mark.parametrize(
    ("setup", "words"),
    [
        (
            SetupFailure(kind=SetupKind.missing_entry, message="", found="int"),
            "define a function named speculative_decode (found a int with that name)",
        ),
        (
            SetupFailure(kind=SetupKind.crashed, message="", exit_status=signal.SIGSEGV),
            "ended with a segmentation fault",
        ),
        (
            SetupFailure(kind=SetupKind.crashed, message="", exit_status=3 << 8),
            "exited early (exit code 3) while it was being loaded",
        ),
        (SetupFailure(kind=SetupKind.timeout, message=""), "used up the time budget of 1000 ms"),
        (SetupFailure(kind=SetupKind.output, message=""), "printed more than 16 KB while it"),
    ],
)
def test_the_sandbox_sends_data_and_the_report_words_it(
    verify: Exercise, setup: SetupFailure, words: str
) -> None:
    report = build_report(verify, RunResult(setup=setup), 1.0)
    assert words in (report.message or ""), report.message


def test_a_crashed_case_is_worded_from_its_wait_status(verify: Exercise) -> None:
    runs = [expected_run(verify, 0), CaseRun(outcome=Outcome.crashed, exit_status=signal.SIGKILL)]
    runs += [expected_run(verify, i) for i in range(2, len(verify.cases))]
    report = build_report(verify, RunResult(cases=runs), 1.0)
    assert report.verdict == Verdict.runtime_error
    assert "the process running your code ended with being killed" in (
        report.tests[1].message or ""
    )
