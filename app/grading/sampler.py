"""The sampler check: a function that returns a token, called many times, tested against its law.

Declared in exercise data (``[sampler]`` in exercise.toml): inputs of the entry point (every
parameter but the generator), each with its trials, seed and exact law, given as ``law`` or
computed by the folder's trusted ``law.py`` (run here, on the host, at load). The judge's own
driver (``sampler_driver.py`` beside this module) calls the learner's function in its confined
child with one generator across the trials and sends back counts; ``check_counts`` reads them
once, and this module checks them against the input and tests them against the law: a chi-square
over bins pooled to MIN_EXPECTED expected counts, at the false-fail share and safety factor of
the distribution check (``distribution.py``), and a token the law gives probability 0 fails at
once. A first look settles an input early, as there.

Nothing here knows an exercise: the words come from the entry point and its parameters' names.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.grading import compare, feedback
from app.grading.check_counts import Counts, InvalidTrial, SamplerCounts
from app.grading.distribution import (
    CONTINUE,
    FALSE_FAIL,
    MAX_TRIALS,
    chi_square,
    require_power,
    settled_words,
)
from app.schemas import CaseResult, Chart, Group, Status
from app.trusted_code import time_limited
from sandbox import Outcome, RunResult

LAW_FILE = "law.py"
INPUT_KEYS = {"name", "input", "trials", "seed"}
OPTIONAL_INPUT_KEYS = {"first_look", "law"}
KEYS = {"inputs", "hints", "lesson"}
# The failures a row's hint may be chosen by: ``token``, the tokens' proportions (the
# chi-square; also the default of every other); ``outside``, a token the law gives probability
# 0; ``no_draw``, a call that drew nothing; ``not_int``, a call that returned no token id.
HINT_TESTS = ("token", "outside", "no_draw", "not_int")
MAX_BINS = 10_000
LAW_SUM_TOLERANCE = 1e-9

# What a function right in distribution but wrong draw by draw should learn (an exercise may
# put it in its own words with ``lesson``).
LESSON = (
    "As far as these calls can tell, your function's tokens come out in the law's proportions, "
    "yet the exact cases fail: they "
    "also fix which random number decides what, so a function can be right in distribution "
    "and still wrong draw by draw"
)

Law = Callable[..., Any]


@dataclass(frozen=True)
class SamplerInput:
    """One declared input: the entry point's arguments but the generator, and its law."""

    name: str
    input: dict[str, Any]  # JSON values by parameter name, in call order
    trials: int
    seed: int
    law: tuple[float, ...]
    first_look: int | None = None

    @property
    def bins(self) -> int:
        return len(self.law)

    @property
    def must_draw(self) -> bool:
        """A law of more than one possible token: a call that draws nothing cannot follow it."""
        return sum(x > 0 for x in self.law) > 1


@dataclass(frozen=True)
class SamplerCheck:
    entry_point: str
    rng: str  # the generator parameter's name
    rng_at: int  # its place in the call
    parameters: dict[str, str]  # every other parameter and its kind, in call order
    inputs: tuple[SamplerInput, ...]
    hints: dict[str, int] = field(default_factory=dict)
    lesson: str = LESSON

    def hint_for(self, failure: str) -> int | None:
        """The hint a row failing this way offers (``token``'s unless its own is declared)."""
        return self.hints.get(failure, self.hints.get("token"))

    @property
    def tests(self) -> int:
        """How many statistical tests share the false-fail rate."""
        return len(self.inputs)


def _fail(message: str) -> ValueError:
    return ValueError(f"[sampler] {message}")


def _load_law(folder: Path) -> Law | None:
    """``law.py``'s ``law(...)``, compiled from its text (an import would leave a cache folder
    in the exercise)."""
    path = folder / LAW_FILE
    if not path.is_file():
        return None
    namespace: dict[str, Any] = {"__name__": f"law_{folder.name}"}
    with time_limited(path, "loading it"):
        try:
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
        except Exception as exc:  # trusted, but a typo in it should name the file
            raise ValueError(f"{path}: raised {type(exc).__name__}: {exc}") from exc
    law = namespace.get("law")
    if not callable(law):
        raise ValueError(f"{path}: must define law(...) with the entry point's parameters")
    return law  # type: ignore[no-any-return]


def _as_law(raw: Any, where: str) -> tuple[float, ...]:
    """A list of probabilities, one per token id, adding up to 1."""
    if isinstance(raw, np.ndarray):
        raw = raw.tolist()
    if not (isinstance(raw, (list, tuple)) and 1 <= len(raw) <= MAX_BINS):
        raise _fail(f"{where}: the law must be a list of 1 to {MAX_BINS} probabilities")
    law = []
    for x in raw:
        if isinstance(x, bool) or not isinstance(x, (int, float, np.floating, np.integer)):
            raise _fail(f"{where}: the law holds numbers only, found {x!r}")
        value = float(x)
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise _fail(f"{where}: the law's probabilities are in [0, 1], found {value!r}")
        law.append(value)
    if abs(sum(law) - 1.0) > LAW_SUM_TOLERANCE:
        raise _fail(f"{where}: the law sums to {sum(law)!r}, not 1")
    return tuple(law)


def _law_arguments(item: Mapping[str, Any], parameters: Mapping[str, str]) -> dict[str, Any]:
    """The input as law.py gets it: ndarray parameters as float64 arrays, the rest as JSON."""
    return {
        name: np.array(item[name], dtype=np.float64) if kind == "ndarray" else item[name]
        for name, kind in parameters.items()
    }


def load_sampler(
    raw: Any,
    folder: Path,
    *,
    entry_point: str,
    parameters: Mapping[str, str],
    returns: str,
    random_argument: str | None,
    hint_count: int,
) -> SamplerCheck | None:
    """``[sampler]`` of exercise.toml; raises ValueError naming the problem."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise _fail("must be a table")
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise _fail(f"unknown key {unknown[0]!r}; it may set {', '.join(sorted(KEYS))}")
    if returns != "int":
        raise _fail(f'needs an entry point that returns one token (returns = "int"), not {returns}')
    generators = [name for name, kind in parameters.items() if kind == "rng"]
    rng = random_argument if random_argument in generators else None
    if rng is None:
        if len(generators) != 1:
            raise _fail("needs exactly one rng parameter, or [random] argument naming one")
        rng = generators[0]
    others = {name: kind for name, kind in parameters.items() if name != rng}
    hints = raw.get("hints", {})
    if not (
        isinstance(hints, dict)
        and set(hints) <= set(HINT_TESTS)
        and all(type(n) is int and 1 <= n <= hint_count for n in hints.values())
    ):
        odd = sorted(set(hints) - set(HINT_TESTS)) if isinstance(hints, dict) else []
        which = f" (not {odd[0]!r})" if odd else ""
        raise _fail(
            f"hints maps {', '.join(HINT_TESTS)}{which} to a hint number from 1 to {hint_count}"
        )
    lesson = raw.get("lesson", LESSON)
    if not (isinstance(lesson, str) and lesson.strip()):
        raise _fail("lesson must be a non-empty string")
    law_function = _load_law(folder)
    items = raw.get("inputs")
    if not (isinstance(items, list) and items):
        raise _fail("declares no [[sampler.inputs]]")
    inputs = []
    for index, item in enumerate(items, start=1):
        inputs.append(_load_input(item, index, others, law_function, folder))
    names = [item.name for item in inputs]
    if len(set(names)) != len(names):
        raise _fail("the inputs' names must be unique")
    return SamplerCheck(
        entry_point=entry_point,
        rng=rng,
        rng_at=list(parameters).index(rng),
        parameters=others,
        inputs=tuple(inputs),
        hints=dict(hints),
        lesson=lesson.strip().rstrip("."),
    )


def _load_input(
    item: Any, index: int, others: Mapping[str, str], law_function: Law | None, folder: Path
) -> SamplerInput:
    where = f"input {index}"
    if not isinstance(item, dict):
        raise _fail(f"{where} must be a table")
    missing = sorted(INPUT_KEYS - set(item))
    unknown = sorted(set(item) - INPUT_KEYS - OPTIONAL_INPUT_KEYS)
    if missing or unknown:
        raise _fail(
            f"{where}: needs name, input, trials and seed (first_look and law may be added); "
            + (f"missing {', '.join(missing)}" if missing else f"unknown key {unknown[0]!r}")
        )
    name = item["name"]
    if not (isinstance(name, str) and name.strip()):
        raise _fail(f"{where}: name must be a non-empty string")
    where = f"input {index} ({name})"
    given = item["input"]
    if not (isinstance(given, dict) and set(given) == set(others)):
        raise _fail(
            f"{where}: input must set exactly the parameters {list(others)} (every one but the "
            "generator)"
        )
    ordered = {key: given[key] for key in others}
    trials, seed, look = item["trials"], item["seed"], item.get("first_look")
    if type(trials) is not int or not 1 <= trials <= MAX_TRIALS:
        raise _fail(f"{where}: trials must be an integer from 1 to {MAX_TRIALS}")
    if type(seed) is not int or seed < 0:
        raise _fail(f"{where}: seed must be a non-negative integer")
    if look is not None and (type(look) is not int or not 1 <= look < trials):
        raise _fail(f"{where}: first_look must be an integer from 1 to trials - 1")
    if "law" in item:
        law = _as_law(item["law"], where)
    elif law_function is not None:
        path = folder / LAW_FILE
        with time_limited(path, f"law on {where}"):
            try:
                computed = law_function(**_law_arguments(ordered, others))
            except Exception as exc:
                raise ValueError(
                    f"{path}: law raised {type(exc).__name__}: {exc} on {where}"
                ) from exc
        law = _as_law(computed, f"{where}, law.py's law")
    else:
        raise _fail(f"{where}: needs a law, or a law.py beside the exercise that computes it")
    try:
        require_power(where, law, trials, look)
    except ValueError as refused:
        raise _fail(str(refused)) from None
    return SamplerInput(str(name), ordered, trials, seed, law, look)


# -- from counts to a row ------------------------------------------------------------------


def readable(item: SamplerInput, counts: SamplerCounts) -> bool:
    """Counts the check can judge: over all the input's trials or its first look's, one per
    token, adding up to them."""
    return (
        counts.trials in (item.trials, item.first_look)
        and len(counts.counts) == item.bins
        and sum(counts.counts) == counts.trials
    )


def _impossible(item: SamplerInput, counts: Sequence[int]) -> list[int]:
    """The tokens returned that the law gives probability 0: each one a certain failure."""
    return [t for t, x in enumerate(item.law) if x == 0 and counts[t] > 0]


def goes_on(item: SamplerInput, counts: Counts) -> bool:
    """Whether an input's first look calls for the rest of its trials: readable counts of the
    look, with no impossible token, whose chi-square is past the (1 - CONTINUE) quantile."""
    if item.first_look is None or not isinstance(counts, SamplerCounts):
        return False
    if not readable(item, counts):
        return False
    if counts.trials != item.first_look or _impossible(item, counts.counts):
        return False
    expected = [item.first_look * x for x in item.law]
    statistic, _, threshold = chi_square(counts.counts, expected, CONTINUE, look=True)
    return statistic > threshold


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _short(value: Any) -> str:
    """An argument as the learner would type it, cut past 80 characters."""
    text = json.dumps(value, separators=(", ", ": "))
    return text if len(text) <= 80 else text[:77] + "..."


def call_text(check: SamplerCheck, item: SamplerInput) -> str:
    """The call as the learner wrote it: ``top_p_sample(probs = [...], top_p = 0.9, rng)``."""
    parts = [f"{name} = {_short(value)}" for name, value in item.input.items()]
    parts.insert(check.rng_at, check.rng)
    return f"{check.entry_point}({', '.join(parts)})"


def judge_input(
    check: SamplerCheck, item: SamplerInput, counts: SamplerCounts, tests: int
) -> tuple[bool, str, Chart]:
    """The verdict on one input's counts (all its trials, or its first look's): passed, the
    sentence, the chart. A look that settled the input passes here too: its bound is inside."""
    rate = FALSE_FAIL / tests
    trials, tokens = counts.trials, counts.counts
    law = list(item.law)
    expected = [trials * x for x in law]
    observed = [c / trials for c in tokens]
    impossible = _impossible(item, tokens)
    # A first look that settled the input is described by the test that settled it.
    look = trials == item.first_look and not (impossible or goes_on(item, counts))
    statistic, df, threshold = chi_square(tokens, expected, rate, look=look)
    passed = not impossible and statistic <= threshold
    chart = Chart(
        tokens=list(range(item.bins)),
        target=law,
        observed=observed,
        trials=trials,
        statistic=round(statistic, 4) if math.isfinite(statistic) else 1e300,
        threshold=round(threshold, 4),
        passed=passed,
        counted="token returned",
        unit="calls",
        law="exact law",
    )
    calls = f"over {trials} calls of {call_text(check, item)}"
    if impossible:
        t = impossible[0]
        sentence = (
            f"{calls}, your function returned token {t} {tokens[t]} times, but the exact law "
            f"gives it probability 0: a correct function never returns it"
        )
    elif statistic > threshold:
        over = max(range(item.bins), key=lambda t: observed[t] - law[t])
        under = min(range(item.bins), key=lambda t: observed[t] - law[t])
        sentence = (
            f"{calls} the tokens are not distributed as the exact law: chi-square "
            f"{statistic:.2f} over {df + 1} bins, above the threshold {threshold:.2f} that a "
            f"correct function exceeds with probability below {FALSE_FAIL:g}; token {over} came "
            f"out {_percent(observed[over])} of the time against {_percent(law[over])} (the most "
            f"over-sampled), token {under} {_percent(observed[under])} against "
            f"{_percent(law[under])} (the most under-sampled)"
        )
    else:
        sentence = (
            f"{calls} the tokens showed no departure from the exact law's proportions that "
            f"{trials} calls can detect (chi-square {statistic:.2f} over {df + 1} bins, within "
            f"the threshold {threshold:.2f})"
        )
        if look:
            sentence += "; " + settled_words(trials, item.trials, "calls", "function")
    return passed, sentence, chart


INVALID = {
    "no_draw": feedback.no_draw_sentence("the law has more than one possible token"),
}


def _invalid_sentence(
    check: SamplerCheck, item: SamplerInput, invalid: Mapping[str, Any] | None
) -> str:
    if invalid is None:
        return "the check could not read what your function returned"
    reason = invalid.get("reason")
    if reason == "token":
        kind = str(invalid.get("type"))[:40]
        what = "returned None" if kind == "NoneType" else f"returned a {kind}"
        what += ", not an int token"
    elif reason == "range":
        what = f"returned token {invalid.get('token')}, outside the token ids 0 to {item.bins - 1}"
    else:
        what = INVALID.get(str(reason), "returned something the check cannot use")
    return f"on call {invalid.get('trial')} of {call_text(check, item)} your function {what}"


def check_rows(
    check: SamplerCheck,
    result: RunResult,
    limits_text: dict[str, str],
    exact_failed: bool,
    tests: int | None = None,
) -> list[CaseResult]:
    """One row per declared input, from the merged check result (a case per input)."""
    rows = []
    for index, item in enumerate(check.inputs):
        run = result.cases[index] if index < len(result.cases) else None
        row = CaseResult(
            name=f"sampler check: {item.name}",
            status=Status.error,
            group=Group.check,
            input={**item.input, "trials": item.trials, "seed": item.seed},
            expected=None,
        )
        if result.setup is not None or run is None:
            rows.append(row.model_copy(update={"message": "not run: your code did not load"}))
            continue
        if run.outcome is not Outcome.returned:
            text = compare.error_message(run, limits_text)
            rows.append(row.model_copy(update={"message": f"during the sampler check: {text}"}))
            continue
        counts = run.value
        if isinstance(counts, InvalidTrial):
            message = _invalid_sentence(check, item, counts.record)
            reason = counts.record.get("reason") if counts.record else None
            failure = "no_draw" if reason == "no_draw" else "not_int"
            update = {"status": Status.failed, "message": message, "hint": check.hint_for(failure)}
            rows.append(row.model_copy(update=update))
            continue
        if not (isinstance(counts, SamplerCounts) and readable(item, counts)):
            message = "the sampler check's counts did not add up; it could not judge"
            rows.append(row.model_copy(update={"message": message}))
            continue
        passed, message, chart = judge_input(check, item, counts, tests or check.tests)
        failure = "outside" if _impossible(item, counts.counts) else "token"
        rows.append(
            row.model_copy(
                update={
                    "status": Status.passed if passed else Status.failed,
                    "hint": None if passed else check.hint_for(failure),
                    # The trials that ran: a first look that settled it stops short of all.
                    "input": {**row.input, "trials": chart.trials},
                    "expected": list(item.law),
                    "actual": [round(x, 6) for x in chart.observed],
                    "message": message,
                    "chart": chart,
                    "duration_ms": round(run.duration_ms, 3),
                }
            )
        )
    if exact_failed and rows and all(row.status == Status.passed for row in rows):
        rows = [
            row.model_copy(update={"message": f"{row.message}. {check.lesson}"}) for row in rows
        ]
    return rows
