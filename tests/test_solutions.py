"""Golden submissions: many correct ways pass, typical mistakes fail with the right message.

Each ``tests/solutions/<exercise>/wrong_*.py`` starts with ``# expect: <verdict> <case name>``
(the first failing case) and may add ``# message: <phrase>`` that the learner must be shown.
A case name of an example means Run catches the mistake there; the name of an extra case (or
``random``, any random case) means only Submit does, and Run must accept the submission.
Submit always reports the same first failing case (its examples come first).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge
from app.grading.tolerance import EXACT
from app.schemas import Group, Mode, Report, Status
from tests import golden

ROOT = golden.REPOSITORY
SEED = 20260101  # these tests replay its random cases (beside fresh ones), so a failure replays
CORRECT = golden.files("correct_*.py")
WRONG = golden.files("wrong_*.py")
_id = golden.name


def test_enough_golden_submissions() -> None:
    for exercise in ("speculative-decoding-verify", "speculative-decoding-resample"):
        assert len(list((ROOT / exercise).glob("correct_*.py"))) >= 12
        assert len(list((ROOT / exercise).glob("wrong_*.py"))) >= 12
    # choose-gamma: three ways of summing the series, and its eight classic mistakes at least
    assert len(list((ROOT / "speculative-decoding-choose-gamma").glob("correct_*.py"))) >= 3
    assert len(list((ROOT / "speculative-decoding-choose-gamma").glob("wrong_*.py"))) >= 8


@pytest.mark.parametrize("path", CORRECT, ids=_id)
def test_correct_solution_is_accepted(path: Path, judge: Judge, catalog: Catalog) -> None:
    report = judge.grade(catalog.get(golden.exercise_of(path)), path.read_text())
    failing = [(t.name, t.message) for t in report.tests if t.status != Status.passed]
    assert report.verdict.value == "accepted", (report.message, failing)
    assert report.passed == report.total == 6


def _expectation(path: Path) -> tuple[str, str, str | None]:
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# expect: "), f"{path} lacks its '# expect:' header"
    verdict, _, case = lines[0].removeprefix("# expect: ").partition(" ")
    phrase = None
    if len(lines) > 1 and lines[1].startswith("# message: "):
        phrase = lines[1].removeprefix("# message: ").strip()
    return verdict, case.strip(), phrase


@pytest.mark.parametrize("path", CORRECT, ids=_id)
def test_correct_solution_passes_submit(path: Path, judge: Judge, catalog: Catalog) -> None:
    exercise = catalog.get(golden.exercise_of(path))
    report = judge.grade(exercise, path.read_text(), Mode.submit, SEED)
    failing = [(t.name, t.message) for t in report.tests if t.status != Status.passed]
    assert report.verdict.value == "accepted", (report.message, failing)
    assert (report.mode, report.replayed_seed) == (Mode.submit, SEED)
    checked = len(exercise.distribution.pairs) if exercise.distribution else 0
    checked += len(exercise.sampler.inputs) if exercise.sampler else 0
    # A replayed seed's random cases, and as many fresh ones beside them.
    wanted = len(exercise.cases) + len(exercise.extra_cases) + 2 * exercise.random_cases + checked
    assert report.passed == report.total == wanted


def _assert_fails_at(report: Report, verdict: str, case_name: str, phrase: str | None) -> None:
    assert report.status != Status.passed
    assert report.verdict.value == verdict, (report.message, [t.message for t in report.tests])
    if report.status == Status.error:  # nothing ran: the report-level message explains
        assert report.message
        text = report.message
    else:
        first = next(t for t in report.tests if t.status != Status.passed)
        if case_name == "random":
            assert first.group == Group.random, first.name
        else:
            assert first.name == case_name
        assert first.message
        text = first.message
    if phrase:
        assert phrase.lower() in text.lower(), text


@pytest.mark.parametrize("path", WRONG, ids=_id)
def test_wrong_solution_fails_where_and_how_expected(
    path: Path, judge: Judge, catalog: Catalog
) -> None:
    verdict, case_name, phrase = _expectation(path)
    exercise = catalog.get(golden.exercise_of(path))
    report = judge.grade(exercise, path.read_text())
    if case_name in {case.name for case in exercise.cases}:
        _assert_fails_at(report, verdict, case_name, phrase)
    else:  # a mistake only Submit's extra or random cases catch
        assert case_name == "random" or case_name in {c.name for c in exercise.extra_cases}
        assert report.verdict.value == "accepted", [t.message for t in report.tests]


@pytest.mark.parametrize("path", WRONG, ids=_id)
def test_wrong_solution_fails_submit(path: Path, judge: Judge, catalog: Catalog) -> None:
    verdict, case_name, phrase = _expectation(path)
    exercise = catalog.get(golden.exercise_of(path))
    report = judge.grade(exercise, path.read_text(), Mode.submit, SEED)
    assert report.mode == Mode.submit
    _assert_fails_at(report, verdict, case_name, phrase)


def test_a_lookup_table_of_the_examples_passes_run_and_fails_submit(
    judge: Judge, catalog: Catalog
) -> None:
    for exercise_id in ("speculative-decoding-verify", "speculative-decoding-resample"):
        exercise = catalog.get(exercise_id)
        code = (ROOT / exercise_id / "wrong_lookup_table.py").read_text()
        run = judge.grade(exercise, code)
        assert (run.verdict.value, run.passed, run.total) == ("accepted", 6, 6)
        submit = judge.grade(exercise, code, Mode.submit)
        assert submit.verdict.value == "wrong_answer"
        assert submit.passed < submit.total
        assert isinstance(submit.seed, int)
        failed_groups = {t.group for t in submit.tests if t.status != Status.passed}
        # Never an example; always an extra or random case (the distribution check may too).
        assert failed_groups <= {Group.extra, Group.random, Group.check}
        assert failed_groups & {Group.extra, Group.random}


def test_the_declared_tolerance_is_what_lets_another_summation_order_pass(
    judge: Judge, catalog: Catalog
) -> None:
    # A running sum ends a few ulps away from the reference's closed form: accepted within the
    # exercise's 1e-9, refused by exact comparison, with the distance in the message.
    exercise = catalog.get("speculative-decoding-choose-gamma")
    code = (ROOT / exercise.id / "correct_running_sum.py").read_text()
    assert judge.grade(exercise, code).verdict.value == "accepted"
    exact = judge.grade(dataclasses.replace(exercise, tolerance=EXACT), code)
    assert exact.verdict.value == "wrong_answer"
    first = next(t for t in exact.tests if t.status != Status.passed)
    assert first.message is not None
    assert first.message.startswith("speedup: you returned 3.09207954285714")
    assert "floats must match the reference exactly" in first.message
