"""How surely the distribution check catches each golden mistake, at the trials it declares.

For every pair of an exercise's ``[distribution]`` and every golden submission named, the
step runs many times through the real check (the trusted driver in a confined child, through
the judge's pool) to estimate the law of its first token; against the target p[0], pooled as
the check pools at its declared trials, that gives the chi-square noncentrality per trial. The
check's statistic on a step that wrong is then noncentral chi-square(df, trials x that), and
the chance that it stays below the threshold is the check's miss rate for that mistake. The
mean number of tokens per step (pairs whose rows are all the same) is reported beside it:
its shift against the check's Bernstein margin. So is how often the step begins with a
replacement outside the residual or a token of probability 0 (either fails the pair for
certain), and, for a pair with a first look, the chance that the look settles a step that
wrong (every test within its early bound) and a correct step's chance to go on past it,
enumerated exactly. A step is missed in all when it settles early or every test misses it at
the end.

    .venv/bin/python tools/distribution_power.py                  # the resample exercise
    .venv/bin/python tools/distribution_power.py --estimate 40000 # a finer estimate

Prints numbers for the exercise.toml comments; asserts nothing (tests/ does, for the golden
mistakes the check is there to catch).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parent.parent
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from app.catalog import Catalog, Exercise  # noqa: E402
from app.grading import (  # noqa: E402
    check_counts,
    distribution,
    distribution_jobs,
    distribution_verdict,
    statistics,
)
from app.grading.check_counts import DraftCounts  # noqa: E402
from app.grading.distribution import (  # noqa: E402
    CHI2_SAFETY,
    CONTINUE,
    FALSE_FAIL,
    LOOK_MIN_EXPECTED,
    MIN_EXPECTED,
    Pair,
)
from app.grading.judge import Judge  # noqa: E402

EXERCISE = "speculative-decoding-resample"
GOLDEN = CHECKOUT / "tests" / "solutions"
# The golden steps that are wrong in distribution (or in their token count), and one right one.
MISTAKES = (
    "correct_while_loop",
    "wrong_residual_not_normalised",
    "wrong_resample_from_target",
    "wrong_residual_abs",
    "wrong_residual_not_clamped",
    "wrong_residual_next_row",
    "wrong_argmax_replacement",
    "wrong_bonus_after_rejection",
)
ESTIMATE_TRIALS = 20_000
ESTIMATE_SEED = 900_001  # not a seed the check itself uses
TARGET_MISS = 1e-6


@dataclass(frozen=True)
class Power:
    """One golden step against one pair, at the pair's declared trials."""

    pair: str
    trials: int
    df: int
    threshold: float
    noncentrality_per_trial: float
    miss: float  # P(the chi-square stays within the threshold) for a step this wrong
    trials_for_target: int | None  # the fewest trials with miss <= TARGET_MISS (None: none)
    mean_shift: float | None  # tokens per step, the step's mean minus the law's (equal rows)
    mean_margin: float | None
    # P(a first look settles a step this wrong), at most (None: the pair declares no look):
    # the smallest of its tests' chances of staying within their bounds.
    early_pass: float | None = None
    # Per trial, at least how often the step's first token fails the pair for certain: a
    # replacement outside the residual (or a rejection of a token that p / q >= 1 always
    # accepts), or a token of probability 0.
    certain_per_trial: float = 0.0
    # P(the mean test passes a step this wrong), at most (1.0: no mean test, or no shift)
    mean_miss: float = 1.0

    @property
    def end_miss(self) -> float:
        """P(a step this wrong passes at all the pair's trials): every test misses it (the
        chi-square, the mean, and not one step a certain failure), at most
        the smallest of their chances."""
        return min(self.miss, self.mean_miss, (1.0 - self.certain_per_trial) ** self.trials)

    @property
    def total_miss(self) -> float:
        """P(the check passes a step this wrong), at most: settled early, or missed at the end."""
        return min(1.0, self.end_miss + (self.early_pass or 0.0))


@dataclass(frozen=True)
class Law:
    """What a step's many runs show: its first token's frequencies, the mean and variance of
    its tokens per step, and at least how often its first token failed the pair for certain
    (a replacement outside the residual, or a token of probability 0: the larger of the two
    rates, since a step can be both)."""

    first: list[float]
    mean: float
    variance: float
    certain: float


def first_token_law(
    judge: Judge, exercise: Exercise, code: str, pair: Pair, trials: int
) -> Law | None:
    """``code``'s step on ``pair`` over ``trials`` steps of the real check (None: the step gave
    the check nothing to count)."""
    check = exercise.distribution
    assert check is not None
    probe = dataclasses.replace(pair, trials=trials, seed=ESTIMATE_SEED, first_look=None)
    ((_, job),) = distribution_jobs.check_jobs(
        dataclasses.replace(check, pairs=(probe,)),
        code,
        exercise.entry_point,
        exercise.helpers_code,
        exercise.limits,
        most=trials,  # one job: the estimate's trials all in one child
    )
    result = judge.pool.submit(job).result(timeout=600)
    if result.setup is not None or not result.cases or result.cases[0].value is None:
        return None
    counts = check_counts.read(result.cases[0].value, DraftCounts)
    if not isinstance(counts, DraftCounts):
        return None
    first, lengths = counts.first, counts.lengths
    mean = sum(k * c for k, c in enumerate(lengths, start=1)) / trials
    variance = sum((k - mean) ** 2 * c for k, c in enumerate(lengths, start=1)) / trials
    impossible = sum(c for c, x in zip(first, pair.p[0], strict=True) if x == 0)
    certain = max(counts.outside, impossible) / trials
    return Law([c / trials for c in first], mean, variance, certain)


def noncentrality(
    law: list[float], target: tuple[float, ...], trials: int, minimum: float = MIN_EXPECTED
) -> tuple[float, int]:
    """Per-trial noncentrality of Pearson's statistic for ``law`` against ``target``, over the
    bins the check pools at ``trials`` (to ``minimum`` expected counts: the final test's unless
    told), and its degrees of freedom."""
    # Pearson's statistic on the expected counts of ``law`` is ``trials`` times the per-trial one.
    statistic, df = statistics.chi2_statistic(
        [trials * x for x in law], [trials * x for x in target], minimum
    )
    return statistic / trials, df


def miss_rate(per_trial: float, target: tuple[float, ...], trials: int, tests: int) -> float:
    """P(a step of that noncentrality passes the chi-square test at ``trials``)."""
    df = noncentrality(list(target), target, trials)[1]
    threshold = statistics.chi2_threshold(FALSE_FAIL / tests / CHI2_SAFETY, df)
    return statistics.noncentral_chi2_cdf(threshold, df, per_trial * trials)


def power(
    judge: Judge, exercise: Exercise, code: str, pair: Pair, estimate: int = ESTIMATE_TRIALS
) -> Power | None:
    """How surely the check's chi-square test on ``pair`` fails ``code``'s step."""
    check = exercise.distribution
    assert check is not None
    found = first_token_law(judge, exercise, code, pair, estimate)
    if found is None:
        return None
    law, mean, certain = found.first, found.mean, found.certain
    target = pair.p[0]
    per_trial, df = noncentrality(law, target, pair.trials)
    threshold = statistics.chi2_threshold(FALSE_FAIL / check.tests / CHI2_SAFETY, df)
    miss = statistics.noncentral_chi2_cdf(threshold, df, per_trial * pair.trials)
    needed = None
    if per_trial > 1e-3 or certain > 0:  # below: estimation noise, no trials would tell
        for trials in range(10, distribution.MAX_TRIALS + 1, 10):
            at, _ = noncentrality(law, target, trials)  # bins pool differently at few trials
            chi_square = miss_rate(at, target, trials, check.tests) if at > 0 else 1.0
            if min(chi_square, (1.0 - certain) ** trials) <= TARGET_MISS:
                needed = trials
                break
    shift = margin = None
    mean_miss = 1.0
    if pair.rows_equal:
        rate = FALSE_FAIL / check.tests
        expected, margin = distribution_verdict.mean_margin(pair, pair.trials, rate)
        shift = mean - expected
        mean_miss = _mean_within(found, pair, pair.trials, abs(shift) - margin)
    early = early_pass(found, pair) if pair.first_look is not None else None
    return Power(
        pair.name,
        pair.trials,
        df,
        threshold,
        per_trial,
        miss,
        needed,
        shift,
        margin,
        early,
        certain,
        mean_miss,
    )


def _mean_within(found: Law, pair: Pair, trials: int, gap: float) -> float:
    """At most the chance that the mean tokens per step over ``trials`` steps of this law
    strays ``gap`` or more from the law's own mean (towards a bound that far off): Bernstein's
    inequality with the step's own variance, its tokens per step within gamma of that mean.
    1.0 when gap <= 0 (the bound is not past the law's mean)."""
    if gap <= 0:
        return 1.0
    exponent = trials * gap**2 / (2 * found.variance + 2 * pair.gamma * gap / 3)
    return min(1.0, 2 * math.exp(-exponent))


def early_pass(found: Law, pair: Pair) -> float:
    """At most the chance that ``pair``'s first look settles a step of this law: settling
    needs every test within its bound, so the smallest of the chi-square's chance (noncentral,
    as at the end), the mean's (Bernstein's tail of the step's own mean past the distance
    between its mean and the bound) and that no step of the look is a certain failure."""
    look = pair.first_look
    assert look is not None
    law, mean = found.first, found.mean
    per_trial, df = noncentrality(law, pair.p[0], look, LOOK_MIN_EXPECTED)
    bound = statistics.chi2_threshold(CONTINUE, df)
    chance = statistics.noncentral_chi2_cdf(bound, df, per_trial * look)
    if pair.rows_equal:
        expected, early_margin = distribution_verdict.mean_margin(pair, look, CONTINUE)
        chance = min(chance, _mean_within(found, pair, look, abs(mean - expected) - early_margin))
    return min(chance, (1.0 - found.certain) ** look)


def exact_false_fail(pair: Pair, tests: int) -> float | None:
    """P(a correct step fails ``pair``'s chi-square test), exactly: the multinomial law of the
    first token's counts summed over every count vector past the threshold (None: more than
    four bins, too many vectors to enumerate).

    The threshold is the asymptotic chi-square's (at the share of FALSE_FAIL over CHI2_SAFETY);
    this is what a correct step meets at the declared trials, with no approximation."""
    return exact_past(pair.p[0], pair.trials, FALSE_FAIL / tests / CHI2_SAFETY)


def exact_goes_on(pair: Pair) -> float | None:
    """P(a correct step's chi-square at ``pair``'s first look passes the bound that settles it),
    exactly (None: no look, or more than four bins): how often it runs the rest of its trials."""
    if pair.first_look is None:
        return None
    return exact_past(pair.p[0], pair.first_look, CONTINUE, LOOK_MIN_EXPECTED)


def exact_past(
    target: tuple[float, ...], trials: int, rate: float, minimum: float = MIN_EXPECTED
) -> float | None:
    """P(Pearson's statistic of ``trials`` draws from ``target`` passes the asymptotic
    chi-square's ``rate`` quantile), summed over every count vector of the bins pooled to
    ``minimum`` expected counts (the final test's unless told)."""
    groups = statistics.pooled_bins([trials * x for x in target], minimum)
    probabilities = np.array([sum(target[i] for i in group) for group in groups])
    if len(groups) > 4 or not math.isclose(probabilities.sum(), 1.0):
        return None
    df = max(1, len(groups) - 1)
    threshold = statistics.chi2_threshold(rate, df)
    expected = trials * probabilities
    log_factorial = np.array([math.lgamma(k + 1.0) for k in range(trials + 1)])
    log_p = np.log(probabilities)
    # The first bins' counts in a loop, the last two free ones as a grid, the last one implied.
    heads = itertools.product(range(trials + 1), repeat=max(0, len(groups) - 3))
    total = 0.0
    for head in heads:
        left = trials - sum(head)
        if left < 0:
            continue
        free = len(groups) - 1 - len(head)  # 0, 1 or 2 counts on the grid
        axes = np.meshgrid(*[np.arange(left + 1)] * free, indexing="ij") if free else []
        rows = [np.full(axes[0].shape if axes else (1,), h) for h in head] + list(axes)
        last = left - sum(axes) if axes else np.array([left])
        keep = last >= 0
        counts = np.stack([row[keep] for row in rows] + [np.asarray(last)[keep]])
        statistic = (((counts - expected[:, None]) ** 2) / expected[:, None]).sum(axis=0)
        past = counts[:, statistic > threshold]
        if past.size:
            log_pmf = log_factorial[trials] - log_factorial[past].sum(axis=0)
            total += float(np.exp(log_pmf + (past * log_p[:, None]).sum(axis=0)).sum())
    return total


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", default=EXERCISE)
    parser.add_argument("--estimate", type=int, default=ESTIMATE_TRIALS, help="steps per law")
    parser.add_argument("mistakes", nargs="*", default=list(MISTAKES), help="golden file stems")
    args = parser.parse_args(argv)
    exercise = Catalog.load().get(args.exercise)
    if exercise is None or exercise.distribution is None:
        print(f"{args.exercise}: no such exercise with a distribution check")
        return 2
    judge = Judge.create(workers=2)
    # Each mistake's chance to be missed by every pair: the pairs' trials are independent (drafts
    # and the learner's generator seeded apart, a stateless step), so the chances multiply.
    everywhere: dict[str, float] = {}
    try:
        check = exercise.distribution
        for index, pair in enumerate(check.pairs, start=1):
            exact = exact_false_fail(pair, check.tests)
            share = FALSE_FAIL / check.tests
            print(
                f"pair {index}: {pair.name} ({pair.trials} trials): a correct step fails its "
                + (
                    f"chi-square with probability {exact:.2e} exactly (its share: {share:.2e})"
                    if exact is not None
                    else "chi-square with a probability not enumerated (over four bins)"
                )
            )
            goes_on = exact_goes_on(pair)
            if goes_on is not None:
                print(
                    f"  first look at {pair.first_look} trials: a correct step's chi-square goes "
                    f"on to the rest with probability {goes_on:.3f} exactly (bound at {CONTINUE})"
                )
            for name in args.mistakes:
                code = (GOLDEN / exercise.id / f"{name}.py").read_text()
                found = power(judge, exercise, code, pair, args.estimate)
                if found is None:
                    print(f"  {name:<34} gave the check nothing to count")
                    continue
                everywhere[name] = everywhere.get(name, 1.0) * found.total_miss
                mean = (
                    f"; tokens per step {found.mean_shift:+.3f} (margin {found.mean_margin:.3f})"
                    if found.mean_shift is not None and found.mean_margin is not None
                    else ""
                )
                early = (
                    f"; settled early with probability {found.early_pass:.1e}"
                    if found.early_pass is not None
                    else ""
                )
                certain = (
                    f"; a certain failure {found.certain_per_trial:.3f}/trial"
                    if found.certain_per_trial
                    else ""
                )
                print(
                    f"  {name:<34} noncentrality {found.noncentrality_per_trial:.3f}/trial, "
                    f"df {found.df}, threshold {found.threshold:.2f}: the chi-square misses "
                    f"with probability {found.miss:.1e}{certain}; {TARGET_MISS:g} needs "
                    f"{found.trials_for_target or 'no number of'} trials{mean}{early}; "
                    f"missed in all {found.total_miss:.1e}"
                )
        print("missed by every pair (the pairs' chances multiplied):")
        for name, chance in everywhere.items():
            print(f"  {name:<34} {chance:.1e}")
    finally:
        judge.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
