"""The distribution check: the learner's step run many times, its first token tested against p.

Declared in exercise data (``[distribution]`` in exercise.toml, pairs of p and q, and a trusted
driver beside the reference, ``distribution.py``). The driver runs in the learner's confined
child (a job of the pool) and sends back counts only; ``check_counts`` reads them once,
``distribution_verdict`` checks them against the pair and does the statistics: a chi-square test
of the first token against p[0] (bins of small expected count pooled) and, when every row is the
same, the mean number of tokens per step against (1 - alpha^(gamma+1)) / (1 - alpha). This
module holds the declaration, as loaded from exercise.toml, and the thresholds the statistics
keep to.

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

from app.grading import statistics

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
    "lesson": "As far as these steps can tell, your step's tokens come out in the law's "
    "proportions, yet the exact cases fail: "
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


def require_power(where: str, law: Sequence[float], trials: int, look: int | None) -> None:
    """Refuse trials (or a first look) so few that the chi-square pools every token into one
    bin: its statistic is then 0 whatever comes out, a check that can never fail but is shown
    as passed. A law with one possible token needs no chi-square (the token returned is the
    whole test)."""
    if sum(1 for x in law if x > 0) < 2:
        return
    tests = ((trials, MIN_EXPECTED, "trials"), (look, LOOK_MIN_EXPECTED, "first_look"))
    for count, minimum, what in tests:
        if count is None or _bins(law, count, minimum) >= 2:
            continue
        needed = next(
            (n for n in range(count + 1, MAX_TRIALS + 1) if _bins(law, n, minimum) >= 2), None
        )
        raise ValueError(
            f"{where}: {what} = {count} pools every token into one bin of the chi-square (bins "
            f"are pooled until each expects {minimum:g}), so it could never fail; it needs at "
            f"least {needed}"
        )


def chi_square(
    counts: Sequence[float], expected: Sequence[float], rate: float, *, look: bool
) -> tuple[float, int, float]:
    """Pearson's statistic of ``counts``, its degrees of freedom, and the threshold it is held
    to: a first look's (bins pooled to LOOK_MIN_EXPECTED, the 1 - CONTINUE quantile) or the
    final test's (MIN_EXPECTED, the false-fail share ``rate`` over CHI2_SAFETY)."""
    minimum = LOOK_MIN_EXPECTED if look else MIN_EXPECTED
    statistic, df = statistics.chi2_statistic(counts, expected, minimum)
    return statistic, df, statistics.chi2_threshold(CONTINUE if look else rate / CHI2_SAFETY, df)


def settled_words(trials: int, declared: int, noun: str, who: str) -> str:
    """What a row that a first look settled adds: how many of its trials ran, and why."""
    return (
        f"settled at the first look: {trials} of the {declared} {noun} were clearly enough (a "
        f"correct {who} goes past that bound one time in {round(1 / CONTINUE)}), so the other "
        f"{declared - trials} did not run"
    )


def _bins(law: Sequence[float], trials: int, minimum: float) -> int:
    return len(statistics.pooled_bins([trials * x for x in law], minimum))


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
        require_power(where, p[0], trials, look)
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
