"""Every exercise folder, proven through the real sandbox (one parametrized test per folder)."""

from __future__ import annotations

import json
import re
import sys

import pytest

from app.catalog import EXERCISES_DIR, Catalog, ExerciseError, load_exercise
from app.grading.exercise_tools import (
    check_exercise,
    reference_expectations,
    with_expectations,
)
from app.grading.judge import Judge
from app.grading.tolerance import EXACT, Tolerance
from app.schemas import Status, Verdict
from tests.exercise_copies import standalone_copy

FOLDERS = sorted(p for p in EXERCISES_DIR.iterdir() if (p / "exercise.toml").is_file())


def test_there_are_exercises() -> None:
    assert {p.name for p in FOLDERS} >= {
        "speculative-decoding-verify",
        "speculative-decoding-resample",
        "speculative-decoding-choose-gamma",
    }


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_folder_is_valid_and_sound(folder, judge: Judge) -> None:
    exercise = load_exercise(folder)
    assert len(exercise.cases) == 6
    assert 3 <= len(exercise.hints) <= 5
    assert check_exercise(judge, exercise) == []


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_reference_passes_and_starter_fails(folder, judge: Judge) -> None:
    exercise = load_exercise(folder)
    reference = judge.grade(exercise, exercise.solution_code)
    assert (reference.status, reference.passed, reference.total) == (Status.passed, 6, 6)
    starter = judge.grade(exercise, exercise.starter_code)
    assert starter.verdict not in (Verdict.compile_error, Verdict.rejected), starter.message
    assert starter.status != Status.passed
    assert all(test.message for test in starter.tests if test.status != Status.passed)


def test_the_resample_starter_is_told_a_step_never_yields_nothing(judge: Judge) -> None:
    exercise = load_exercise(EXERCISES_DIR / "speculative-decoding-resample")
    report = judge.grade(exercise, exercise.starter_code)
    first = report.tests[0]
    assert first.message is not None
    assert first.message.startswith("you returned no tokens, but a step always yields at least one")
    assert repr(first.expected) in first.message


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_stored_expectations_equal_regenerated(folder, judge: Judge) -> None:
    exercise = load_exercise(folder)
    regenerated = reference_expectations(judge, exercise)
    assert [case.expected for case in exercise.cases] == regenerated
    # and `judge exercises regen` would leave the file byte for byte as stored, in whatever
    # layout its author chose (regen edits expectations in place, it imposes no layout)
    text = (folder / "cases.json").read_text(encoding="utf-8")
    assert with_expectations(text, regenerated) == text


def test_related_exercises_link_both_ways(catalog: Catalog) -> None:
    for exercise in catalog:
        for other in exercise.related:
            assert exercise.id in catalog.get(other).related


def test_exercises_are_listed_in_their_declared_order(catalog: Catalog) -> None:
    # The verification step is the first half of the full step: it comes before it, although
    # "resample" sorts before "verify" by id.
    ids = [exercise.id for exercise in catalog]
    assert ids.index("speculative-decoding-verify") < ids.index("speculative-decoding-resample")
    orders = [exercise.order for exercise in catalog]
    assert orders == sorted(orders)


def test_a_changed_expectation_is_caught(tmp_path, judge: Judge) -> None:
    copy = standalone_copy(EXERCISES_DIR / "speculative-decoding-verify", tmp_path)
    cases = json.loads((copy / "cases.json").read_text())
    cases[1]["expected"]["value"] = [[10, 20], 2]
    (copy / "cases.json").write_text(json.dumps(cases))
    problems = check_exercise(judge, load_exercise(copy))
    assert any("stored expected" in problem for problem in problems)


def test_loading_an_exercise_writes_nothing_into_its_folder(tmp_path, monkeypatch) -> None:
    # An imported case_generator.py left a __pycache__ folder there, which then broke the
    # copy above (and `judge exercises check` reads the folder as data). As a process that
    # writes bytecode (the benchmarks' servers do) would load it:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    source = EXERCISES_DIR / "speculative-decoding-resample"
    copy = tmp_path / source.name
    copy.mkdir()
    for path in source.iterdir():
        if path.is_file():
            (copy / path.name).write_bytes(path.read_bytes())
    before = sorted(p.name for p in copy.iterdir())
    assert load_exercise(copy).random_case is not None
    assert sorted(p.name for p in copy.iterdir()) == before


def _append(path, text: str) -> None:
    path.write_text(path.read_text() + "\n" + text)


def test_floats_are_exact_unless_an_exercise_declares_a_tolerance(catalog: Catalog) -> None:
    for exercise_id in ("speculative-decoding-verify", "speculative-decoding-resample"):
        assert catalog.get(exercise_id).tolerance == EXACT
    assert catalog.get("speculative-decoding-choose-gamma").tolerance == Tolerance(
        rel_tol=1e-9, abs_tol=1e-12
    )


@pytest.mark.parametrize(
    ("mutate", "complaint"),
    [
        (lambda d: (d / "statement.md").unlink(), "statement.md: missing file"),
        (lambda d: (d / "cases.json").write_text("[]"), "exactly 6 cases"),
        (lambda d: (d / "cases.json").write_text("{"), "not valid JSON"),
        (
            lambda d: (d / "exercise.toml").write_text(
                (d / "exercise.toml").read_text().replace('returns = "', 'returns = "dict[')
            ),
            "returns",
        ),
        (
            lambda d: (d / "exercise.toml").write_text(
                (d / "exercise.toml").read_text().replace('difficulty = "hard"', 'difficulty = "x"')
            ),
            "difficulty",
        ),
        (
            lambda d: (d / "exercise.toml").write_text(
                re.sub(
                    r"^order = \d+",
                    'order = "first"',
                    (d / "exercise.toml").read_text(),
                    flags=re.M,
                )
            ),
            "'order' must be an integer",
        ),
        (
            lambda d: _append(d / "exercise.toml", "[compare]\nrel_tol = -1e-9\n"),
            r"exercise.toml: \[compare\] rel_tol must be a finite number >= 0",
        ),
        (
            lambda d: _append(d / "exercise.toml", '[compare]\nabs_tol = "tiny"\n'),
            r"\[compare\] abs_tol must be a finite number >= 0",
        ),
        (
            lambda d: _append(d / "exercise.toml", "[compare]\nrelative = 1e-9\n"),
            r"\[compare\] has an unknown key 'relative'",
        ),
        (
            lambda d: (d / "exercise.toml").write_text(
                "compare = 1e-9\n" + (d / "exercise.toml").read_text()
            ),
            r"\[compare\] may only set the numbers rel_tol and abs_tol",
        ),
    ],
)
def test_broken_folders_are_refused_with_the_file_named(tmp_path, mutate, complaint) -> None:
    copy = standalone_copy(EXERCISES_DIR / "speculative-decoding-verify", tmp_path)
    mutate(copy)
    with pytest.raises(ExerciseError, match=complaint):
        load_exercise(copy)
