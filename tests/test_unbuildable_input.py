"""An input the sandbox cannot make into arguments is that case's problem, reported, not a crash
of the child, and it never blames the code that was never called."""

from __future__ import annotations

from app.catalog import Catalog
from app.grading import case_sets
from app.grading.judge import Judge
from app.grading.reports import build_report
from app.schemas import Mode, Status
from sandbox import CaseRun, Outcome, RunResult
from tests.inputs import RESAMPLE_INPUT, nested

RESAMPLE = "speculative-decoding-resample"
GOOD = RESAMPLE_INPUT
UNBUILDABLE = {**GOOD, "q": nested(65)}


def test_the_case_is_reported_and_the_next_case_still_runs(judge: Judge, catalog: Catalog) -> None:
    exercise = catalog.get(RESAMPLE)
    assert exercise is not None
    result = judge.reference(exercise, [UNBUILDABLE, GOOD]).result(timeout=60)
    assert result.setup is None
    first, second = result.cases
    assert first.outcome is Outcome.bad_input and first.error is not None
    assert first.error.type == "ValueError"
    assert second.outcome is Outcome.returned


def test_neither_the_reference_nor_the_learner_is_blamed(judge: Judge, catalog: Catalog) -> None:
    exercise = catalog.get(RESAMPLE)
    assert exercise is not None
    inputs = [UNBUILDABLE]
    expected = judge.reference(exercise, inputs).result(timeout=60)
    learner = judge.submit(exercise, exercise.solution_code, inputs).result(timeout=60)
    cases = case_sets.expected_cases(exercise, inputs, expected, "your input", "custom")
    problem = cases[0].reference_problem
    assert problem is not None
    assert problem.startswith("this input cannot be made into the function's arguments")
    report = build_report(exercise, learner, 1.0, cases, Mode.custom)
    (test,) = report.tests
    assert test.status == Status.error and test.message is not None
    assert "cannot be made into the function's arguments" in test.message
    assert "your code" not in test.message and "raised" not in test.message
    assert "Sandbox" not in test.message


def test_a_reference_result_too_large_to_describe_is_no_verdict(catalog: Catalog) -> None:
    """Past the sandbox's budget for a described value (values.MAX_ITEMS), the reference's
    result cannot be compared: the case has no verdict, and a correct answer is not failed."""
    for exercise in catalog:
        big = RunResult(cases=[CaseRun(Outcome.returned, value={"t": "too_big", "type": "list"})])
        inputs = [case.input for case in exercise.cases[:1]]
        cases = case_sets.expected_cases(exercise, inputs, big, "your input", "custom")
        assert cases[0].reference_problem == (
            "the reference's result on this input is too large to compare"
        )
        (test,) = build_report(exercise, big, 1.0, cases, Mode.custom).tests
        assert test.status == Status.error and "too large to compare" in (test.message or "")
