"""A wrong decision's row says what the reference did there, with the numbers that decided it.

For each golden wrong submission whose first failure is a wrong token, the row cites the
reference's deciding draw, the acceptance probability with its parts, the comparison and the
decision (and, after a rejection, the residual and the interval its draw fell into).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.catalog import Catalog, load_exercise
from app.grading.judge import Judge
from app.schemas import Status
from tests import golden
from tests.test_authoring import copy_of, set_toml, toml_text

ROOT = Path(__file__).parent / "solutions"
VERIFY = "speculative-decoding-verify"
RESAMPLE = "speculative-decoding-resample"

RESIDUAL_WORKED = (
    "token 0: draw 1 gave u = 0.5; a = min(1, 0.2 / 0.5) = 0.4; u = 0.5 >= 0.4: rejected",
    "the residual max(0, p[0] - q[0]) = [0, 0.2, 0.1], normalised [0, 0.6667, 0.3333]",
    "draw 2 gave u = 0.8, which falls in [0.6667, 1): token 2",
)
TIE = (
    "token 1: draw 1 gave u = 0.5; a = min(1, 0.25 / 0.5) = 0.5; "
    "u = 0.5 >= 0.5 (exactly equal: the test is strict): rejected",
    "normalised [0.5, 0, 0.5, 0], running sums [0.5, 0.5, 1, 1]",
    "draw 2 gave u = 0.375, which falls in [0, 0.5): token 0",
)
BONUS = (
    "the bonus row p[2] (every proposal was kept) = [0.3, 0.3, 0.4]",
    "draw 3 gave u = 0.1, which falls in [0, 0.3): token 0",
)
FIRST_SEED_42 = (
    "position 0: token 5: draw 1 gave r = 0.3745; a = min(1, 0.3 / 0.8) = 0.375; "
    "r = 0.3745 < 0.375: accepted",
)
TARGET_ZERO = (
    "token 1: draw 3 gave u = 0; a = min(1, 0 / 0.5) = 0; u = 0 >= 0",
    "draw 4 gave u = 0.25, which falls in [0.25, 0.75): token 2",
)

EXPLAINED = {
    f"{VERIFY}/wrong_less_or_equal": (
        "position 1: token 8: draw 2 gave r = 0.9507; a = min(1, 0.4754 / 0.5) = 0.9507; "
        "r = 0.9507 >= 0.9507 (exactly equal: the test is strict): rejected",
    ),
    f"{VERIFY}/wrong_no_break": (
        "position 1: token 20: draw 2 gave r = 0.9507; a = min(1, 0.4 / 0.5) = 0.8; "
        "r = 0.9507 >= 0.8: rejected",
    ),
    f"{VERIFY}/wrong_ratio_upside_down": ("a = min(1, 0.4 / 0.5) = 0.8; r = 0.9507 >= 0.8",),
    f"{VERIFY}/wrong_default_rng": FIRST_SEED_42,
    f"{VERIFY}/wrong_extra_draw_at_start": FIRST_SEED_42,
    f"{VERIFY}/wrong_no_seed": FIRST_SEED_42,
    f"{VERIFY}/wrong_python_random": FIRST_SEED_42,
    f"{VERIFY}/wrong_two_draws_per_token": FIRST_SEED_42,
    f"{VERIFY}/wrong_reseed_in_loop": (
        "draw 5 gave r = 0.156; a = min(1, 0.063 / 0.4) = 0.1575; r = 0.156 < 0.1575: accepted",
    ),
    f"{VERIFY}/wrong_skip_draw_when_certain": (
        "token 31: draw 3 gave r = 0.732; a = min(1, 0.25 / 0.5) = 0.5; r = 0.732 >= 0.5",
    ),
    f"{VERIFY}/wrong_zero_check_on_target": (
        "token 6: draw 4 gave r = 0.5987; a = min(1, 0 / 0.25) = 0; r = 0.5987 >= 0: rejected",
    ),
    f"{RESAMPLE}/wrong_argmax_replacement": RESIDUAL_WORKED,
    f"{RESAMPLE}/wrong_extra_draw_before_resample": RESIDUAL_WORKED,
    f"{RESAMPLE}/wrong_residual_abs": RESIDUAL_WORKED,
    f"{RESAMPLE}/wrong_residual_not_clamped": RESIDUAL_WORKED,
    f"{RESAMPLE}/wrong_uniforms_up_front": RESIDUAL_WORKED,
    f"{RESAMPLE}/wrong_bonus_after_rejection": (
        "The reference's step ended at position 0",
        *RESIDUAL_WORKED,
    ),
    f"{RESAMPLE}/wrong_less_or_equal": TIE,
    f"{RESAMPLE}/wrong_resample_from_target": TIE,
    f"{RESAMPLE}/wrong_residual_next_row": TIE,
    f"{RESAMPLE}/wrong_residual_not_normalised": TIE,
    f"{RESAMPLE}/wrong_bonus_from_last_draft_row": BONUS,
    f"{RESAMPLE}/wrong_global_random": BONUS,
    f"{RESAMPLE}/wrong_missing_bonus": BONUS,
    f"{RESAMPLE}/wrong_ratio_upside_down": BONUS,
    f"{RESAMPLE}/wrong_skip_draw_when_certain": BONUS,
    f"{RESAMPLE}/wrong_own_sampler_closed_interval": TARGET_ZERO,
    f"{RESAMPLE}/wrong_skip_draw_when_target_zero": TARGET_ZERO,
}

# The learner's own draws beside the reference's, when the counts differ.
DRAWS = {
    f"{RESAMPLE}/wrong_less_or_equal": (
        "your function drew 3 random numbers (0.5, 0.375, 0.75); the reference draws 2 (0.5, 0.375)"
    ),
    f"{RESAMPLE}/wrong_missing_bonus": (
        "your function drew 2 random numbers (0.5, 0.8); the reference draws 3 (0.5, 0.8, 0.1)"
    ),
    f"{RESAMPLE}/wrong_no_stop_after_rejection": (
        "asked for random number 4, more than this case provides (it had drawn 0.5, 0.8, 0.1); "
        "the reference draws 2 (0.5, 0.8)"
    ),
}


def _first_failure(judge: Judge, catalog: Catalog, key: str) -> str:
    exercise_id, name = key.split("/")
    report = judge.grade(catalog.get(exercise_id), (ROOT / exercise_id / f"{name}.py").read_text())
    first = next(t for t in report.tests if t.status != Status.passed)
    assert first.message
    return first.message


@pytest.mark.parametrize("key", sorted(EXPLAINED))
def test_the_first_failing_row_cites_the_deciding_draw(
    key: str, judge: Judge, catalog: Catalog
) -> None:
    message = _first_failure(judge, catalog, key)
    for phrase in EXPLAINED[key]:
        assert phrase in message, message


@pytest.mark.parametrize("key", sorted(DRAWS))
def test_both_draw_sequences_are_shown(key: str, judge: Judge, catalog: Catalog) -> None:
    assert DRAWS[key] in _first_failure(judge, catalog, key)


def test_every_wrong_decision_is_explained(judge: Judge, catalog: Catalog) -> None:
    # Any golden mistake whose first failure is a wrong token gets the reference's step. Only
    # an exercise with a trace.py has steps to word: elsewhere "position i" is a float or an
    # item of a list (a softmax's probabilities, a beam), worded by the comparison itself.
    for path in golden.files("wrong_*.py"):
        exercise = catalog.get(golden.exercise_of(path))
        if exercise is None or not exercise.trace_code:
            continue  # no trace: nothing of the reference's steps to cite
        report = judge.grade(exercise, path.read_text())
        first = next((t for t in report.tests if t.status == Status.failed), None)
        token = (
            exercise.returns == "int" and "but the reference returned" in (first.message or "")
            if first
            else False
        )
        if first is None or not first.message or ("position " not in first.message and not token):
            continue  # a type, mutation or draw-count failure: no token to explain
        if "must be" not in first.message and "modified" not in first.message:
            assert "What the reference did" in first.message or "step ended" in first.message, (
                path.name,
                first.message,
            )


def test_a_custom_input_is_explained_from_the_reference_run_on_demand(
    judge: Judge, catalog: Catalog
) -> None:
    # The trace of an input no one stored: the reference's own child traces it on demand.
    exercise = catalog.get(VERIFY)
    code = (ROOT / VERIFY / "wrong_ratio_upside_down.py").read_text()
    inputs = {
        "draft_probs": [0.5, 0.25],
        "target_probs": [0.25, 0.5],
        "draft_tokens": [3, 4],
        "target_dist_next": None,
    }
    report = judge.run_custom(exercise, code, inputs)
    message = report.tests[0].message or ""
    assert message == (
        "accepted_tokens: position 1: you rejected token 4 but the reference accepted it. "
        "What the reference did at position 1: token 4: draw 2 gave r = 0.9507; "
        "a = min(1, 0.5 / 0.25) = 1; r = 0.9507 < 1: accepted."
    )


def test_a_draw_beside_a_boundary_is_shown_with_the_digits_that_tell_them_apart(
    judge: Judge, catalog: Catalog
) -> None:
    # Four digits would read "u = 0.7; u falls in [0.7, 0.8)", which explains nothing.
    exercise = catalog.get("sampling-inverse-cdf")
    code = "def sample_token(probs, rng):\n    rng.random()\n    return 6\n"
    inputs = {"probs": [0.1] * 10, "rng": {"scripted": [0.70000001]}}
    message = judge.run_custom(exercise, code, inputs).tests[0].message or ""
    assert "draw 1 gave u = 0.70000001;" in message, message
    assert "u falls in [0.7, 0.8): token 7" in message, message


def test_a_zero_over_zero_ratio_is_explained_as_the_reference_decided_it(
    judge: Judge, catalog: Catalog, tmp_path: Path
) -> None:
    # A draft token both models give probability 0: the reference's u < p/q is u < nan, false,
    # so it rejects; the trace must say the same. The exercise refuses such an input ([custom]
    # support: a draft never proposes a token its q rules out), so a copy without that does.
    copy = copy_of(catalog.get(RESAMPLE).folder, tmp_path)  # type: ignore[union-attr]
    set_toml(copy, re.sub(r"^support\s*=.*\n", "", toml_text(copy), flags=re.M))
    exercise = load_exercise(copy)
    code = exercise.solution_code.replace("if u < p[i, x]", "if q[i, x] == 0 or u < p[i, x]")
    inputs = {"p": [[0.0, 1.0], [0.5, 0.5]], "q": [[0.0, 1.0]], "draft": [0]}
    report = judge.run_custom(exercise, code, {**inputs, "rng": {"scripted": [0.3, 0.6]}})
    message = report.tests[0].message or ""
    assert report.tests[0].expected == [0] and report.tests[0].actual != [0]
    assert "a = 0 (token 0: 0 / 0 is not a number, and u < nan is false); " in message, message
    assert "u = 0.3 >= 0: rejected" in message, message


def test_a_random_case_is_explained_and_shows_both_draw_sequences(
    judge: Judge, catalog: Catalog
) -> None:
    from app.schemas import Group, Mode

    exercise = catalog.get(RESAMPLE)
    code = (ROOT / RESAMPLE / "wrong_missing_bonus.py").read_text()
    report = judge.grade(exercise, code, Mode.submit, 7)
    random_rows = [t for t in report.tests if t.group == Group.random and t.status == Status.failed]
    assert random_rows
    explained = [t for t in random_rows if "What the reference did" in (t.message or "")]
    assert explained, [t.message for t in random_rows]
    assert any("the bonus row p[" in (t.message or "") for t in explained)
    assert any(
        "; the reference draws " in (t.message or "") and "(" in (t.message or "")
        for t in random_rows
    )
