"""The catalog's Submit parts: extra cases, the case generator and the custom-input caps, each
refused with a message naming the file when it breaks the format."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.catalog import EXERCISES_DIR, ExerciseError, load_exercise
from app.grading import case_sets
from tests.exercise_copies import standalone_copy

VERIFY = EXERCISES_DIR / "speculative-decoding-verify"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return standalone_copy(VERIFY, tmp_path)


def _edit_extra(folder: Path, change) -> None:  # type: ignore[no-untyped-def]
    path = folder / "extra_cases.json"
    cases = json.loads(path.read_text())
    change(cases)
    path.write_text(json.dumps(cases))


def test_the_shipped_exercises_declare_extra_and_random_cases() -> None:
    for name in ("speculative-decoding-verify", "speculative-decoding-resample"):
        exercise = load_exercise(EXERCISES_DIR / name)
        assert len(exercise.extra_cases) >= 8
        assert all(case.group == "extra" and case.expected for case in exercise.extra_cases)
        assert exercise.random_cases == 20 and exercise.random_case is not None


def test_random_cases_replay_from_their_seed_and_differ_across_seeds() -> None:
    exercise = load_exercise(EXERCISES_DIR / "speculative-decoding-resample")
    first = case_sets.random_inputs(exercise, 11)
    assert first == case_sets.random_inputs(exercise, 11)
    assert first != case_sets.random_inputs(exercise, 12)
    json.dumps(first, allow_nan=False)  # JSON-safe
    for case in first:
        q = case["q"]
        if isinstance(q, list):  # each proposal is a token its draft row can propose
            assert all(row[x] > 0 for row, x in zip(q, case["draft"], strict=True))
        else:
            assert q == {"empty": [0, len(case["p"][0])]} and case["draft"] == []


def test_fresh_cases_are_drawn_ahead_and_handed_out_once() -> None:
    exercise = load_exercise(EXERCISES_DIR / "speculative-decoding-verify")
    fresh = case_sets.FreshCases()
    first = fresh.take_set(exercise)  # none ready: drawn now
    first_seed = first.seed
    assert first.inputs == case_sets.random_inputs(exercise, first_seed)  # replays from its seed
    fresh.restock(exercise)
    fresh.restock(exercise)  # AHEAD sets wait at most
    stocked = [fresh.take_set(exercise) for _ in range(case_sets.AHEAD)]
    for one in stocked:
        assert one.inputs == case_sets.random_inputs(exercise, one.seed)
    again = fresh.take_set(exercise).seed  # each stocked set went once; this one is new
    seeds = {first_seed, again, *(one.seed for one in stocked)}
    assert len(seeds) == 2 + case_sets.AHEAD and all(0 <= s < 2**31 for s in seeds)


def test_an_extra_case_hint_outside_the_hints_is_refused(folder: Path) -> None:
    _edit_extra(folder, lambda cases: cases[0].update(hint=9))
    with pytest.raises(ExerciseError, match=r"extra_cases.json: case 1 .* hint must be"):
        load_exercise(folder)


def test_an_extra_case_reusing_an_example_name_is_refused(folder: Path) -> None:
    example = json.loads((folder / "cases.json").read_text())[0]["name"]
    _edit_extra(folder, lambda cases: cases[0].update(name=example))
    with pytest.raises(ExerciseError, match="already used in cases.json"):
        load_exercise(folder)


def test_a_generator_with_the_wrong_keys_is_refused(folder: Path) -> None:
    (folder / "case_generator.py").write_text("def random_case(rng):\n    return {'k': 1}\n")
    with pytest.raises(ExerciseError, match="case_generator.py: random_case must return a dict"):
        load_exercise(folder)


def test_a_generator_that_raises_is_refused(folder: Path) -> None:
    (folder / "case_generator.py").write_text("def random_case(rng):\n    return 1 / 0\n")
    with pytest.raises(ExerciseError, match="random_case raised ZeroDivisionError"):
        load_exercise(folder)


def test_random_cases_without_a_generator_are_refused(folder: Path) -> None:
    (folder / "case_generator.py").unlink()
    with pytest.raises(ExerciseError, match="random_cases needs a case_generator.py"):
        load_exercise(folder)


def test_bad_custom_caps_are_refused(folder: Path) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace("max_length = 1000", "max_length = 0"))
    with pytest.raises(ExerciseError, match=r"\[custom\] max_length must be a positive integer"):
        load_exercise(folder)


def test_the_generator_draws_only_from_the_generator_it_is_given() -> None:
    exercise = load_exercise(VERIFY)
    assert exercise.random_case is not None
    a = exercise.random_case(np.random.default_rng(3))
    b = exercise.random_case(np.random.default_rng(3))
    assert a == b


@pytest.mark.parametrize(
    "declared",
    [
        'draft_probs = { type = "float", min = 0, max = 1 }',  # a list parameter
        'target_dist_next = { type = "float", min = 1, max = 0 }',  # empty range
        'target_dist_next = { type = "text", min = 0, max = 1 }',
        'target_dist_next = { type = "int", min = 0 }',
        'target_dist_next = { type = "int", min = 0, max = 1.5 }',
    ],
)
def test_bad_scalar_ranges_are_refused(folder: Path, declared: str) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text() + f"\n[custom.scalars]\n{declared}\n")
    with pytest.raises(ExerciseError, match=r"\[custom\] scalars"):
        load_exercise(folder)


@pytest.mark.parametrize("declared", ["{ draft_probs = 1 }", "{ target_dist_next = 2 }"])
def test_an_ndim_for_a_parameter_that_is_no_array_is_refused(folder: Path, declared: str) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text() + f"ndim = {declared}\n")
    with pytest.raises(ExerciseError, match=r"\[custom\] ndim maps ndarray parameters"):
        load_exercise(folder)


@pytest.mark.parametrize(
    "declared",
    [
        "target_dist_next = 1e-6",  # a value parameter
        "no_such_parameter = 1e-6",
        "draft_probs = 1",  # a tolerance of the whole sum
        "draft_probs = -1e-6",
        'draft_probs = "1e-6"',
    ],
)
def test_a_misdeclared_distribution_is_refused_naming_it(folder: Path, declared: str) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text() + f"\n[custom.probabilities]\n{declared}\n")
    name = declared.split()[0]
    with pytest.raises(
        ExerciseError, match=rf"\[custom\] probabilities maps list parameters .*\({name}\)"
    ) as caught:
        load_exercise(folder)
    assert str(folder / "exercise.toml") in str(caught.value)


@pytest.mark.parametrize("declared", ['["target_dist_next"]', '["nope"]', '"draft_probs"'])
def test_a_nonempty_for_a_parameter_that_is_no_list_is_refused(folder: Path, declared: str) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text() + f"nonempty = {declared}\n")
    with pytest.raises(ExerciseError, match=r"\[custom\] nonempty must list list or ndarray"):
        load_exercise(folder)


def test_declared_distributions_and_nonempty_lists_load(folder: Path) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(
        toml.read_text() + 'nonempty = ["draft_probs"]\nprobabilities = { draft_probs = 0 }\n'
    )
    caps = load_exercise(folder).input_caps
    assert (caps.nonempty, dict(caps.probabilities)) == (("draft_probs",), {"draft_probs": 0.0})
