"""The distribution check: the learner's step run many times, its first token tested against p.

Declared in exercise data (``[distribution]`` in exercise.toml, pairs of p and q, and a trusted
driver beside the reference, ``distribution.py``). The driver runs in the learner's confined
child (a job of the pool) and sends back counts only; this module validates them and does the
statistics: a chi-square test of the first token against p[0] (bins of small expected count
pooled) and, when every row is the same, the mean number of tokens per step against
(1 - alpha^(gamma+1)) / (1 - alpha).

The false-fail rate of a correct step is at most FALSE_FAIL over the whole check: it is split
evenly (Bonferroni) over the check's tests. Each mean test's margin comes from Bernstein's
inequality, which holds at any number of trials. Each chi-square threshold is the chi-square
upper quantile (the asymptotic law of Pearson's statistic, which is why bins are pooled to at
least MIN_EXPECTED expected counts) at its share divided by CHI2_SAFETY: the exact multinomial
tail is heavier than the asymptotic one at these trial counts (simulated, 4 million correct
runs of 400 steps over six tokens: 1.5e-5 past the 1e-5 quantile), so the share is taken ten
times smaller. Seeds are fixed, so a verdict is reproducible.

A pair may declare a first look: its first ``first_look`` trials run alone, and when every test
of the pair is clearly within what a correct step gives (each statistic under the quantile a
correct step exceeds with probability CONTINUE), the pair is settled there and its other trials
never run. Otherwise they run, and the verdict is on all of them, at the usual thresholds. A
look that can only stop the check *passing* never adds to the false-fail rate; what it costs is
power, the chance that a wrong step looks clearly right early, which
``tools/distribution_power.py`` computes for each golden mistake beside the final test's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.grading import compare, feedback, statistics
from app.schemas import CaseResult, Chart, Group, Status
from sandbox import Outcome, RunResult

FALSE_FAIL = 1e-6
CHI2_SAFETY = 10.0
MIN_EXPECTED = 20.0
MAX_TRIALS = 100_000
# At a first look, a correct step is sent on to the rest of its trials with probability about
# this, per test (the chi-square's quantile is asymptotic, Bernstein's margin holds exactly).
CONTINUE = 0.05
# A look pools fewer bins than the final test: its bound is only the 95% quantile (a correct
# step's rate of going on, enumerated exactly by tools/distribution_power.py), and pooling a
# rare token there hid the mistakes that show in it (a wrong step's excess on a rare token
# settled early).
LOOK_MIN_EXPECTED = 5.0
DRIVER_FILE = "distribution.py"
PAIR_KEYS = {"name", "p", "q", "trials", "seed"}

# The check's words that belong to the exercise: [distribution.words] in its exercise.toml may
# put each in its own terms. ``lesson``: what a step right in distribution but wrong draw by draw
# should learn; ``target``: how the row p[0] is named; ``kept`` and ``replaced``: why a first
# token other than the draft's is one a correct step never returns, when the draft's token is
# always kept there and when the token returned is given probability 0 ({draft}, {token} and
# {p_draft}, {q_draft}, {p_token}, {q_token}, the rows' numbers at those tokens, filled in).
WORDS = {
    "lesson": "Your step's tokens come out in the law's proportions, yet the exact cases fail: "
    "they also fix which random number decides what, so a step can be right in distribution "
    "and still wrong draw by draw",
    "target": "the row p[0]",
    "kept": "but p = {p_draft} >= q = {q_draft} there, so a correct step always keeps token "
    "{draft}",
    "replaced": "but a correct step gives token {token} probability 0 there (p = {p_token} <= "
    "q = {q_token})",
}
WORD_FIELDS = ("draft", "token", "p_draft", "q_draft", "p_token", "q_token")


@dataclass(frozen=True)
class Pair:
    name: str
    p: tuple[tuple[float, ...], ...]  # gamma + 1 rows
    q: tuple[tuple[float, ...], ...]  # gamma rows
    trials: int
    seed: int
    first_look: int | None = None  # trials run before deciding whether the rest are needed

    @property
    def gamma(self) -> int:
        return len(self.q)

    @property
    def rows_equal(self) -> bool:
        """Every row of p the same and every row of q the same: the token count is geometric."""
        return all(row == self.p[0] for row in self.p) and all(row == self.q[0] for row in self.q)

    @property
    def alpha(self) -> float:
        return sum(min(a, b) for a, b in zip(self.p[0], self.q[0], strict=True))

    def inputs(self) -> dict[str, Any]:
        return {
            "p": [list(row) for row in self.p],
            "q": [list(row) for row in self.q],
            "trials": self.trials,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class DistributionCheck:
    driver: str
    pairs: tuple[Pair, ...]
    # The hints (1-based) a failing row offers: for its first token (the chi-square, a token of
    # probability 0, a first token a correct step never returns) and for its tokens per step.
    hints: dict[str, int] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=lambda: dict(WORDS))

    @property
    def tests(self) -> int:
        """How many statistical tests share the false-fail rate."""
        return sum(1 + pair.rows_equal for pair in self.pairs)


def _rows(raw: Any, name: str, where: str) -> tuple[tuple[float, ...], ...]:
    if not (isinstance(raw, list) and raw and all(isinstance(row, list) for row in raw)):
        raise ValueError(f"{where}: {name} must be a list of rows")
    rows = []
    for row in raw:
        if not row or not all(type(x) in (int, float) and 0 <= x <= 1 for x in row):
            raise ValueError(f"{where}: every row of {name} holds probabilities in [0, 1]")
        if not math.isclose(sum(row), 1.0, abs_tol=1e-9):
            raise ValueError(f"{where}: a row of {name} sums to {sum(row)}, not 1")
        rows.append(tuple(float(x) for x in row))
    if len({len(row) for row in rows}) != 1:
        raise ValueError(f"{where}: the rows of {name} differ in length")
    return tuple(rows)


HINT_TESTS = ("first_token", "tokens_per_step")


def load_check(raw: Any, folder: Path, hint_count: int = 0) -> DistributionCheck | None:
    """``[distribution]`` of exercise.toml and its driver; raises ValueError naming the problem."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - {"pairs", "hints", "words"}:
        raise ValueError("[distribution] holds only [[distribution.pairs]], hints and words")
    words = _words(raw.get("words", {}))
    hints = raw.get("hints", {})
    if not (
        isinstance(hints, dict)
        and set(hints) <= set(HINT_TESTS)
        and all(type(n) is int and 1 <= n <= hint_count for n in hints.values())
    ):
        raise ValueError(
            f"[distribution] hints map {' and '.join(HINT_TESTS)} to hint numbers from 1 to "
            f"{hint_count}"
        )
    pairs = []
    for index, item in enumerate(raw.get("pairs", []), start=1):
        where = f"distribution pair {index}"
        if not isinstance(item, dict) or not PAIR_KEYS <= set(item) <= PAIR_KEYS | {"first_look"}:
            raise ValueError(
                f"{where}: needs exactly name, p, q, trials and seed (first_look may be added)"
            )
        p, q = _rows(item["p"], "p", where), _rows(item["q"], "q", where)
        if len(p) != len(q) + 1 or len(p[0]) != len(q[0]):
            raise ValueError(f"{where}: p needs one row more than q, of the same length")
        trials, seed = item["trials"], item["seed"]
        if type(trials) is not int or not 1 <= trials <= MAX_TRIALS:
            raise ValueError(f"{where}: trials must be an integer from 1 to {MAX_TRIALS}")
        if type(seed) is not int or seed < 0:
            raise ValueError(f"{where}: seed must be a non-negative integer")
        look = item.get("first_look")
        if look is not None and (type(look) is not int or not 1 <= look < trials):
            raise ValueError(f"{where}: first_look must be an integer from 1 to trials - 1")
        pairs.append(Pair(str(item["name"]), p, q, trials, seed, look))
    if not pairs:
        raise ValueError("[distribution] declares no pairs")
    driver = folder / DRIVER_FILE
    if not driver.is_file():
        raise ValueError(f"{driver}: missing (the distribution check's driver)")
    source = driver.read_text(encoding="utf-8")
    compile(source, str(driver), "exec")  # a SyntaxError names the line
    return DistributionCheck(source, tuple(pairs), dict(hints), words)


def _words(raw: Any) -> dict[str, str]:
    """[distribution.words]: the check's words in the exercise's own terms (WORDS' keys)."""
    if not (isinstance(raw, dict) and set(raw) <= set(WORDS)):
        raise ValueError(f"[distribution.words] may set {', '.join(WORDS)}")
    words = dict(WORDS)
    for key, text in raw.items():
        if not (isinstance(text, str) and text.strip()):
            raise ValueError(f"[distribution.words] {key} must be a non-empty string")
        try:
            text.format_map(dict.fromkeys(WORD_FIELDS, "0"))
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"[distribution.words] {key}: only {{{'}, {'.join(WORD_FIELDS)}}} may be filled "
                f"in ({exc})"
            ) from None
        words[key] = text.strip().rstrip(".") if key == "lesson" else text
    return words


# -- from counts to a row --------------------------------------------------------------------


def _counts(value: Any, length: int, trials: int) -> list[int] | None:
    if not (isinstance(value, list) and len(value) == length):
        return None
    if not all(type(x) is int and x >= 0 for x in value) or sum(value) != trials:
        return None
    return value


INVALID = {
    "not_list": "returned something other than a list",
    "token": "returned a first token that is not an int",
    "no_draw": feedback.no_draw_sentence("every step draws at least one (for its final sample)"),
}


def _outside_sound(counts: dict[str, Any], vocabulary: int) -> bool:
    """The first tokens a correct step never returns, if counted: a number up to the trials, and the
    first of them (trial, draft, token) exactly when there was one, with tokens in range."""
    outside, seen = counts.get("outside", 0), counts.get("first_outside")
    if type(outside) is not int or not 0 <= outside <= counts["trials"]:
        return False
    if outside == 0:
        return seen is None
    return (
        isinstance(seen, dict)
        and set(seen) == {"trial", "draft", "token"}
        and all(type(x) is int for x in seen.values())
        and 1 <= seen["trial"] <= counts["trials"]
        and 0 <= seen["draft"] < vocabulary
        and 0 <= seen["token"] < vocabulary
    )


def _invalid_sentence(invalid: Any, gamma: int) -> str:
    if not isinstance(invalid, dict):
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


def _steps_mean(lengths: list[int], trials: int) -> float:
    """The mean tokens per step of the counts (lengths[k]: steps that yielded k + 1 tokens)."""
    return sum(k * c for k, c in enumerate(lengths, start=1)) / trials


def _readable(pair: Pair, counts: Any) -> bool:
    """Counts the check can judge: over all the pair's trials or its first look's, every
    count summing to them, the first tokens a correct step never returns as the driver names
    them."""
    if not isinstance(counts, dict) or counts.get("trials") not in (pair.trials, pair.first_look):
        return False
    vocabulary, trials = len(pair.p[0]), counts["trials"]
    return (
        _counts(counts.get("first"), vocabulary, trials) is not None
        and _counts(counts.get("lengths"), pair.gamma + 1, trials) is not None
        and _outside_sound(counts, vocabulary)
    )


def _settles(pair: Pair, counts: dict[str, Any]) -> bool:
    """Whether a first look's counts, with no token of probability 0 and no replacement
    a correct step never returns, are clearly what a correct step gives: the chi-square under its
    (1 - CONTINUE) quantile and, on equal rows, the mean within the margin at CONTINUE."""
    trials, first = counts["trials"], counts["first"]
    expected = [trials * x for x in pair.p[0]]
    statistic, df = statistics.chi2_statistic(first, expected, LOOK_MIN_EXPECTED)
    if statistic > statistics.chi2_threshold(CONTINUE, df):
        return False
    if pair.rows_equal:
        mean, margin = mean_margin(pair, trials, CONTINUE)
        return abs(_steps_mean(counts["lengths"], trials) - mean) <= margin
    return True


def goes_on(pair: Pair, counts: Any) -> bool:
    """Whether a pair's first look calls for the rest of its trials: readable counts of the
    look that neither settle it nor already fail it for certain (a token of probability 0, or
    a first token a correct step never returns)."""
    if pair.first_look is None or not _readable(pair, counts):
        return False
    if counts["trials"] != pair.first_look:
        return False
    if _impossible(pair.p[0], counts["first"]) or counts.get("outside"):
        return False  # failed for certain already
    return not _settles(pair, counts)


def _outside_sentence(
    pair: Pair, seen: dict[str, int], outside: int, trials: int, words: dict[str, str]
) -> str:
    """What a first token a correct step never returns says: the trial, the draft, the token."""
    p, q = pair.p[0], pair.q[0]
    trial, draft, token = seen["trial"], seen["draft"], seen["token"]
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
    pair: Pair, counts: dict[str, Any], tests: int, words: dict[str, str] = WORDS
) -> tuple[str | None, str, Chart]:
    """The verdict on one pair's counts (all its trials, or its first look's): the test it
    failed first (one of HINT_TESTS; None: it passed), the sentence, the chart. A first look
    that settled the pair passes every test here too: its bounds are inside the thresholds."""
    rate = FALSE_FAIL / tests
    trials = counts["trials"]
    target = list(pair.p[0])
    first, lengths = counts["first"], counts["lengths"]
    expected = [trials * x for x in target]
    observed = [c / trials for c in first]
    impossible = _impossible(target, first)
    outside = counts.get("outside", 0)
    statistic, df = statistics.chi2_statistic(first, expected, MIN_EXPECTED)
    threshold = statistics.chi2_threshold(rate / CHI2_SAFETY, df)
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
    if outside:
        parts.append(_outside_sentence(pair, counts["first_outside"], outside, trials, words))
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
    else:
        parts.append(
            f"over {trials} steps the first token came out in the target's proportions "
            f"(chi-square {statistic:.2f} over {df + 1} bins, within the threshold "
            f"{threshold:.2f})"
        )
    if pair.rows_equal:
        alpha, gamma = pair.alpha, pair.gamma
        mean, margin = mean_margin(pair, trials, rate)
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
    if passed and trials == pair.first_look:
        parts.append(
            f"settled at the first look: {trials} of the {pair.trials} trials were clearly "
            f"enough, so the other {pair.trials - trials} did not run"
        )
    return failed, "; ".join(parts), chart


def check_rows(
    check: DistributionCheck,
    result: RunResult,
    limits_text: dict[str, str],
    exact_failed: bool,
) -> list[CaseResult]:
    """One row per declared pair, from the check job's raw result."""
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
        counts = compare.plain(run.value)
        if isinstance(counts, dict) and "invalid" in counts:
            message = _invalid_sentence(counts["invalid"], pair.gamma)
            rows.append(row.model_copy(update={"status": Status.failed, "message": message}))
            continue
        if not _readable(pair, counts):
            message = "the distribution check's counts did not add up; it could not judge"
            rows.append(row.model_copy(update={"message": message}))
            continue
        failed, message, chart = judge_pair(pair, counts, check.tests, check.words)
        rows.append(
            row.model_copy(
                update={
                    "status": Status.passed if failed is None else Status.failed,
                    "hint": check.hints.get(failed) if failed is not None else None,
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
