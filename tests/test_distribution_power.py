"""The distribution check's trials are enough: each golden mistake in distribution fails it with
probability above 1 - 1e-6 at the trials the exercise declares, counting its chance to look
clearly right at a first look (and stop there) as well as to pass at the end.

Each mistake's first-token law is estimated through the real check (its step run thousands of
times by the trusted driver in a confined child, a seed of its own); the check's statistic on
that step is then noncentral chi-square, whose chance of staying under the threshold is the
miss rate (tools/distribution_power.py prints the same numbers for exercise.toml).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

import pytest

from app.catalog import Catalog, Exercise
from app.grading import statistics
from app.grading.distribution import CHI2_SAFETY, CONTINUE, FALSE_FAIL, Pair
from app.grading.judge import Judge
from tools.distribution_power import Power, exact_false_fail, exact_goes_on, power

EXERCISE = "speculative-decoding-resample"
GOLDEN = Path(__file__).parent / "solutions" / EXERCISE
ESTIMATE = 8_000
# Each mistake the pair built to catch it alone (exercise.toml says why).
DECISIVE = {
    "wrong_residual_not_normalised": 0,
    "wrong_resample_from_target": 0,
    "wrong_residual_not_clamped": 1,
    "wrong_residual_next_row": 1,
    "wrong_argmax_replacement": 1,
}
# |p - q| is caught by the three pairs together: pair 3 (supports apart) is built for it.
TOGETHER = {"wrong_residual_abs": 2}
MISTAKES = sorted(
    [*DECISIVE, *TOGETHER, "wrong_bonus_after_rejection"]  # the bonus: pair 1's mean test
)
_FOUND: dict[tuple[str, int], Power] = {}


@pytest.fixture(scope="module")
def exercise(catalog: Catalog) -> Exercise:
    found = catalog.get(EXERCISE)
    assert found is not None and found.distribution is not None
    return found


def _power(judge: Judge, exercise: Exercise, name: str, index: int) -> Power:
    """The golden step ``name`` against pair ``index``, estimated once per session."""
    assert exercise.distribution is not None
    if (name, index) not in _FOUND:
        code = (GOLDEN / f"{name}.py").read_text()
        pair = exercise.distribution.pairs[index]
        found = power(judge, exercise, code, pair, ESTIMATE)
        assert found is not None
        _FOUND[name, index] = found
    return _FOUND[name, index]


@pytest.mark.parametrize(("name", "pair"), sorted(DECISIVE.items()))
def test_each_mistake_fails_its_pair_almost_surely(
    name: str, pair: int, judge: Judge, exercise: Exercise
) -> None:
    assert exercise.distribution is not None
    declared = exercise.distribution.pairs[pair]
    found = _power(judge, exercise, name, pair)
    assert found.trials == declared.trials
    assert found.noncentrality_per_trial > 0.2
    # Missed only if every test misses it: the chi-square, and (for a replacement drawn outside
    # the residual) every one of its steps not being one.
    assert found.end_miss <= 1e-6, (found.noncentrality_per_trial, found.miss)
    assert found.trials_for_target is not None and found.trials_for_target <= declared.trials
    assert (found.early_pass is None) == (declared.first_look is None)
    assert found.total_miss <= 1e-6, (found.early_pass, found.miss)


@pytest.mark.parametrize("name", MISTAKES)
def test_each_mistake_fails_the_whole_check_almost_surely(
    name: str, judge: Judge, exercise: Exercise
) -> None:
    # The pairs' trials are seeded apart and a golden step keeps no state, so the chances of
    # being missed by each pair multiply: the check misses the step only if every pair does.
    assert exercise.distribution is not None
    pairs = range(len(exercise.distribution.pairs))
    missed = math.prod(_power(judge, exercise, name, index).total_miss for index in pairs)
    assert missed <= 1e-6, [_power(judge, exercise, name, index).total_miss for index in pairs]


def test_the_pair_with_supports_apart_catches_an_absolute_residual_half_the_time(
    judge: Judge, exercise: Exercise
) -> None:
    assert exercise.distribution is not None
    pair = exercise.distribution.pairs[TOGETHER["wrong_residual_abs"]]
    # Every draft is the token p gives probability 0, so every step is a replacement; |p - q|
    # puts half its mass back on that token, which fails the pair for certain.
    assert all(p == 0 for p, q in zip(pair.p[0], pair.q[0], strict=True) if q > 0)
    found = _power(judge, exercise, "wrong_residual_abs", TOGETHER["wrong_residual_abs"])
    assert found.certain_per_trial == pytest.approx(0.5, abs=0.03)
    assert found.total_miss <= 0.6**pair.trials
    # A correct step never returns that token: the pair cannot fail it.
    right = power(judge, exercise, exercise.solution_code, pair, ESTIMATE)
    assert right is not None and right.certain_per_trial == 0 and right.total_miss > 0.99


def test_a_correct_step_shows_no_noncentrality(judge: Judge, exercise: Exercise) -> None:
    assert exercise.distribution is not None
    for pair in exercise.distribution.pairs:
        found = power(judge, exercise, exercise.solution_code, pair, ESTIMATE)
        assert found is not None
        assert found.noncentrality_per_trial < 0.005  # estimation noise only (df / ESTIMATE)
        assert found.miss > 0.99  # it passes the chi-square test, as it must
        if found.mean_shift is not None and found.mean_margin is not None:
            assert abs(found.mean_shift) < found.mean_margin / 4


def test_a_bonus_after_rejection_fails_the_mean_by_far(judge: Judge, exercise: Exercise) -> None:
    assert exercise.distribution is not None
    pair = exercise.distribution.pairs[0]
    assert pair.rows_equal
    code = (GOLDEN / "wrong_bonus_after_rejection.py").read_text()
    found = power(judge, exercise, code, pair, ESTIMATE)
    assert found is not None and found.mean_shift is not None and found.mean_margin is not None
    # One more token after each rejection, P(a rejection) = 1 - 0.5^3: far past the margin.
    assert found.mean_shift == pytest.approx(1 - 0.5**3, abs=0.05)
    assert found.mean_shift > 2 * found.mean_margin and found.mean_miss <= 1e-6
    # Its first tokens are right, so only the mean keeps it from settling at the first look.
    assert pair.first_look is not None and found.early_pass is not None
    assert found.early_pass <= 1e-6


def _enumerated(target: tuple[float, ...], trials: int, tests: int) -> float:
    """The same tail, by a plain loop over every count vector (small cases only)."""
    threshold = statistics.chi2_threshold(FALSE_FAIL / tests / CHI2_SAFETY, len(target) - 1)
    total = 0.0
    for head in itertools.product(range(trials + 1), repeat=len(target) - 1):
        if sum(head) > trials:
            continue
        counts = (*head, trials - sum(head))
        pairs = list(zip(counts, target, strict=True))
        statistic = sum((c - trials * p) ** 2 / (trials * p) for c, p in pairs)
        if statistic > threshold:
            ways = math.factorial(trials) // math.prod(math.factorial(c) for c in counts)
            total += ways * math.prod(p**c for c, p in pairs)
    return total


@pytest.mark.parametrize(
    ("target", "trials"),
    [((0.7, 0.3), 80), ((0.5, 0.3, 0.2), 100), ((0.25, 0.25, 0.25, 0.25), 80)],  # no bin pooled
)
def test_the_exact_false_fail_rate_is_the_enumerated_one(
    target: tuple[float, ...], trials: int
) -> None:
    pair = Pair("probe", (target, target), (target,), trials, seed=1)
    exact = exact_false_fail(pair, tests=3)
    assert exact is not None and exact > 0
    assert exact == pytest.approx(_enumerated(target, trials, tests=3), rel=1e-9)


def test_a_correct_step_fails_the_whole_check_with_probability_below_1e6(
    exercise: Exercise,
) -> None:
    check = exercise.distribution
    assert check is not None
    share = FALSE_FAIL / check.tests
    chi_square = [exact_false_fail(pair, check.tests) for pair in check.pairs]
    assert all(rate is not None and rate <= share for rate in chi_square), chi_square
    # Each mean test's margin is Bernstein's bound at its share: it holds at any trials.
    means = sum(pair.rows_equal for pair in check.pairs) * share
    assert sum(rate or 0.0 for rate in chi_square) + means <= FALSE_FAIL


def test_a_correct_step_goes_on_past_a_first_look_about_as_often_as_declared(
    exercise: Exercise,
) -> None:
    check = exercise.distribution
    assert check is not None
    looking = [pair for pair in check.pairs if pair.first_look is not None]
    assert looking
    for pair in looking:
        goes_on = exact_goes_on(pair)
        assert goes_on is not None
        # The 95% quantile is the asymptotic law's; at a few hundred trials the exact
        # multinomial law passes it about as often.
        assert 0.5 * CONTINUE <= goes_on <= 1.5 * CONTINUE, goes_on
        assert exact_goes_on(dataclasses.replace(pair, first_look=None)) is None
