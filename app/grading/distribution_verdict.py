"""The distribution check's counts judged: the typed counts (``check_counts``) checked per pair,
its tests run (the chi-square of the first token; on equal rows, the mean tokens per step), whether
a first look calls for the rest of the trials, and the report row with its chart.

The thresholds, their false-fail shares and why they are set so are in ``distribution``, with
the declaration they belong to.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from app.grading import compare, feedback, statistics
from app.grading.check_counts import Counts, DraftCounts, FirstOutside, InvalidTrial
from app.grading.distribution import (
    CONTINUE,
    FALSE_FAIL,
    WORDS,
    DistributionCheck,
    Pair,
    chi_square,
    settled_words,
)
from app.schemas import CaseResult, Chart, Group, Status
from sandbox import Outcome, RunResult


def _sums_to(counts: Sequence[int], length: int, trials: int) -> bool:
    return len(counts) == length and sum(counts) == trials


INVALID = {
    "not_list": "returned something other than a list",
    "token": "returned a first token that is not an int",
    "no_draw": feedback.no_draw_sentence("every step draws at least one (for its final sample)"),
}


def _outside_sound(counts: DraftCounts, vocabulary: int) -> bool:
    """The first tokens a correct step never returns, if counted: a number up to the trials, and the
    first of them (trial, draft, token) exactly when there was one, with tokens in range."""
    outside, seen = counts.outside, counts.first_outside
    if outside > counts.trials:
        return False
    if outside == 0:
        return seen is None
    return (
        seen is not None
        and 1 <= seen.trial <= counts.trials
        and seen.draft < vocabulary
        and seen.token < vocabulary
    )


def _invalid_sentence(invalid: Mapping[str, Any] | None, gamma: int) -> str:
    if invalid is None:
        return "the check could not read what your step returned"
    trial = invalid.get("trial")
    reason = invalid.get("reason")
    if reason == "length":
        what = f"returned {invalid.get('length')} tokens, but a step yields 1 to {gamma + 1}"
    elif reason == "range":
        what = f"returned token {invalid.get('token')}, outside the vocabulary"
    else:
        what = INVALID.get(str(reason), "returned something the check cannot use")
    return f"on trial {trial} of the distribution check your step {what}"


def _geometric(alpha: float, gamma: int) -> tuple[float, float]:
    """Mean and variance of the tokens per step: P(k) = alpha^(k-1) (1 - alpha), k <= gamma."""
    masses = [alpha ** (k - 1) * (1 - alpha) for k in range(1, gamma + 1)] + [alpha**gamma]
    mean = sum(k * m for k, m in enumerate(masses, start=1))
    variance = sum((k - mean) ** 2 * m for k, m in enumerate(masses, start=1))
    return mean, variance


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _impossible(target: Sequence[float], first: Sequence[int]) -> list[int]:
    """The tokens the step returned first that the target's row gives probability 0."""
    return [t for t, x in enumerate(target) if x == 0 and first[t] > 0]


def mean_margin(pair: Pair, trials: int, rate: float) -> tuple[float, float]:
    """The tokens per step a correct step yields on ``pair`` (every row the same) on average,
    and the margin its mean over ``trials`` steps strays past with probability below ``rate``
    (Bernstein's inequality, its tokens per step within 1..gamma + 1)."""
    mean, variance = _geometric(pair.alpha, pair.gamma)
    spread = max(mean - 1, pair.gamma + 1 - mean)
    return mean, statistics.bernstein_margin(trials, variance, spread, rate)


def _steps_mean(lengths: Sequence[int], trials: int) -> float:
    """The mean tokens per step of the counts (lengths[k]: steps that yielded k + 1 tokens)."""
    return sum(k * c for k, c in enumerate(lengths, start=1)) / trials


def _readable(pair: Pair, counts: DraftCounts) -> bool:
    """Counts the check can judge: over all the pair's trials or its first look's, every
    count summing to them, the first tokens a correct step never returns as the driver names
    them."""
    if counts.trials not in (pair.trials, pair.first_look):
        return False
    vocabulary, trials = len(pair.p[0]), counts.trials
    return (
        _sums_to(counts.first, vocabulary, trials)
        and _sums_to(counts.lengths, pair.gamma + 1, trials)
        and _outside_sound(counts, vocabulary)
    )


def _settles(pair: Pair, counts: DraftCounts) -> bool:
    """Whether a first look's counts, with no token of probability 0 and no replacement
    a correct step never returns, are clearly what a correct step gives: the chi-square under its
    (1 - CONTINUE) quantile and, on equal rows, the mean within the margin at CONTINUE."""
    trials, first = counts.trials, counts.first
    expected = [trials * x for x in pair.p[0]]
    statistic, _, threshold = chi_square(first, expected, CONTINUE, look=True)
    if statistic > threshold:
        return False
    if pair.rows_equal:
        mean, margin = mean_margin(pair, trials, CONTINUE)
        return abs(_steps_mean(counts.lengths, trials) - mean) <= margin
    return True


def goes_on(pair: Pair, counts: Counts) -> bool:
    """Whether a pair's first look calls for the rest of its trials: readable counts of the
    look that neither settle it nor already fail it for certain (a token of probability 0, or
    a first token a correct step never returns)."""
    if pair.first_look is None or not isinstance(counts, DraftCounts):
        return False
    if not _readable(pair, counts):
        return False
    if counts.trials != pair.first_look:
        return False
    if _impossible(pair.p[0], counts.first) or counts.outside:
        return False  # failed for certain already
    return not _settles(pair, counts)


def _outside_sentence(
    pair: Pair, seen: FirstOutside, outside: int, trials: int, words: dict[str, str]
) -> str:
    """What a first token a correct step never returns says: the trial, the draft, the token."""
    p, q = pair.p[0], pair.q[0]
    trial, draft, token = seen.trial, seen.draft, seen.token
    numbers = {
        "draft": str(draft),
        "token": str(token),
        "p_draft": f"{p[draft]:.4g}",
        "q_draft": f"{q[draft]:.4g}",
        "p_token": f"{p[token]:.4g}",
        "q_token": f"{q[token]:.4g}",
    }
    why = words["kept" if p[draft] >= q[draft] else "replaced"].format_map(numbers)
    return (
        f"on trial {trial} the draft proposed token {draft} first and your step returned token "
        f"{token} in its place, {why}; {outside} of your {trials} steps began with such a "
        f"replacement, which a correct step never makes"
    )


def judge_pair(
    pair: Pair, counts: DraftCounts, tests: int, words: dict[str, str] = WORDS
) -> tuple[str | None, str, Chart]:
    """The verdict on one pair's counts (all its trials, or its first look's): the test it
    failed first (one of HINT_TESTS; None: it passed), the sentence, the chart. A first look
    that settled the pair passes every test here too: its bounds are inside the thresholds."""
    rate = FALSE_FAIL / tests
    trials = counts.trials
    target = list(pair.p[0])
    first, lengths = counts.first, counts.lengths
    expected = [trials * x for x in target]
    observed = [c / trials for c in first]
    impossible = _impossible(target, first)
    outside = counts.outside
    # A first look that settled the pair is described by the test that settled it: its own
    # pooling and bound (the final test's would pool a look's few trials into one bin).
    look = trials == pair.first_look and not (impossible or outside or goes_on(pair, counts))
    statistic, df, threshold = chi_square(first, expected, rate, look=look)
    passed = not impossible and not outside and statistic <= threshold
    failed = None if passed else "first_token"
    tokens = list(range(len(target)))
    chart = Chart(
        tokens=tokens,
        target=target,
        observed=observed,
        trials=trials,
        statistic=round(statistic, 4) if math.isfinite(statistic) else 1e300,
        threshold=round(threshold, 4),
        passed=passed,
    )
    parts = []
    replaced = counts.first_outside  # there exactly when ``outside`` (``_readable``)
    if outside and replaced is not None:
        parts.append(_outside_sentence(pair, replaced, outside, trials, words))
    if impossible:
        t = impossible[0]
        parts.append(
            f"your step returned token {t} first {first[t]} times out of {trials}, but "
            f"{words['target']} gives it probability 0"
        )
    elif statistic > threshold:
        over = max(tokens, key=lambda t: observed[t] - target[t])
        under = min(tokens, key=lambda t: observed[t] - target[t])
        parts.append(
            f"over {trials} steps the first token is not distributed as {words['target']}: "
            f"chi-square {statistic:.2f} over {df + 1} bins, above the threshold "
            f"{threshold:.2f} that a correct step exceeds with probability below "
            f"{FALSE_FAIL:g}; token {over} came out {_percent(observed[over])} of the time "
            f"against p = {_percent(target[over])} (the most over-sampled), token {under} "
            f"{_percent(observed[under])} against p = {_percent(target[under])} "
            f"(the most under-sampled)"
        )
    elif not outside:  # failed for certain already: its proportions are beside the point
        parts.append(
            f"over {trials} steps the first token showed no departure from the target's "
            f"proportions that {trials} steps can detect (chi-square {statistic:.2f} over "
            f"{df + 1} bins, within the threshold {threshold:.2f})"
        )
    if pair.rows_equal:
        alpha, gamma = pair.alpha, pair.gamma
        mean, margin = mean_margin(pair, trials, CONTINUE if look else rate)
        seen = _steps_mean(lengths, trials)
        formula = (
            f"(1 - alpha^(gamma+1)) / (1 - alpha) = {mean:.3f} (alpha = {alpha:.3g}, "
            f"gamma = {gamma})"
        )
        if abs(seen - mean) > margin:
            passed = False
            failed = failed or "tokens_per_step"
            chart = chart.model_copy(update={"passed": False})
            parts.append(
                f"your steps yielded {seen:.3f} tokens on average; with every row the same a "
                f"correct step yields {formula}, and strays more than {margin:.3f} from it "
                f"with probability below {FALSE_FAIL:g}"
            )
        else:
            parts.append(f"tokens per step averaged {seen:.3f}, as expected: {formula}")
    if passed and look:
        parts.append(settled_words(trials, pair.trials, "trials", "step"))
    return failed, "; ".join(parts), chart


def check_rows(
    check: DistributionCheck,
    result: RunResult,
    limits_text: dict[str, str],
    exact_failed: bool,
) -> list[CaseResult]:
    """One row per declared pair, from the check's merged result (``distribution_jobs``)."""
    rows = []
    for index, pair in enumerate(check.pairs):
        run = result.cases[index] if index < len(result.cases) else None
        name = f"distribution check: {pair.name}"
        row = CaseResult(
            name=name, status=Status.error, group=Group.check, input=pair.inputs(), expected=None
        )
        if result.setup is not None or run is None:
            rows.append(row.model_copy(update={"message": "not run: your code did not load"}))
            continue
        if run.outcome is not Outcome.returned:
            text = compare.error_message(run, limits_text)
            update = {"message": f"during the distribution check: {text}"}
            rows.append(row.model_copy(update=update))
            continue
        counts = run.value
        if isinstance(counts, InvalidTrial):
            message = _invalid_sentence(counts.record, pair.gamma)
            rows.append(row.model_copy(update={"status": Status.failed, "message": message}))
            continue
        if not (isinstance(counts, DraftCounts) and _readable(pair, counts)):
            message = "the distribution check's counts did not add up; it could not judge"
            rows.append(row.model_copy(update={"message": message}))
            continue
        failed, message, chart = judge_pair(pair, counts, check.tests, check.words)
        rows.append(
            row.model_copy(
                update={
                    "status": Status.passed if failed is None else Status.failed,
                    "hint": check.hints.get(failed) if failed is not None else None,
                    # The trials that ran: a first look that settled it stops short of all.
                    "input": {**row.input, "trials": chart.trials},
                    "expected": list(pair.p[0]),
                    "actual": [round(x, 6) for x in chart.observed],
                    "message": message,
                    "chart": chart,
                    "duration_ms": round(run.duration_ms, 3),
                }
            )
        )
    if exact_failed and all(row.status == Status.passed for row in rows):
        # Right in distribution on every pair, wrong draw by draw: the lesson. One pair passing
        # beside a failing one says nothing of the kind.
        rows = [
            row.model_copy(update={"message": f"{row.message}. {check.words['lesson']}"})
            for row in rows
        ]
    return rows
