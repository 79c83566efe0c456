"""How surely the sampler check catches each golden mistake, at the calls its exercise declares.

For every exercise with a ``[sampler]`` table, every declared input and every golden submission
of that exercise, the function runs many times through the real check (the judge's driver in a
confined child, through the pool, one seed apart from the check's) to estimate the law of its
tokens. Against the input's exact law, pooled as the check pools, that gives the chi-square
noncentrality per call; the check's statistic on a function that wrong is then noncentral
chi-square(df, calls x that), whose chance of staying under the threshold is the miss at the
end. A token the law gives probability 0 fails the input for certain, so a function that
returns one at rate z also passes only with (1 - z)^calls. With a first look, the function is
missed when the look settles it (its chi-square, bins pooled to 5, under the 95% quantile, and
no impossible token) or when it passes at the end. The inputs' seeds are apart, so a mistake
passes the whole check only if it passes every input: the product of their misses.

A call the check cannot count (a float, no draw from the generator) fails on that call: such
a submission shows as "fails on call 1".

It also says whether a correct sampler, which turns the seed's draws into the same tokens as
the reference does, settles at each input's look (the reference's own counts at the declared
seed): if not, every correct Submit runs the input's remaining calls.

    .venv/bin/python tools/sampler_power.py                    # every [sampler] exercise
    .venv/bin/python tools/sampler_power.py --exercise top-k-sampling --estimate 40000
    .venv/bin/python tools/sampler_power.py --look 100 --trials 300   # what-if, every input

Prints numbers for the exercise.toml comments; asserts nothing (tests/ does).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))

from app.catalog import Catalog, Exercise  # noqa: E402
from app.grading import check_counts, sampler, sampler_jobs, statistics  # noqa: E402
from app.grading.check_counts import InvalidTrial, SamplerCounts  # noqa: E402
from app.grading.distribution import (  # noqa: E402
    CHI2_SAFETY,
    CONTINUE,
    FALSE_FAIL,
    LOOK_MIN_EXPECTED,
    MIN_EXPECTED,
)
from app.grading.distribution_jobs import Chunk  # noqa: E402
from app.grading.judge import Judge  # noqa: E402
from app.grading.sampler import SamplerCheck, SamplerInput  # noqa: E402

ESTIMATE_CALLS = 20_000
ESTIMATE_SEED = 900_001  # not a seed any check uses
# An estimate whose own chi-square against the law stays under this rate's threshold is the
# law's within the estimate's noise: the submission is right in distribution (the exact cases
# must catch it, if it is wrong). The estimate's seed is fixed, so the call is deterministic.
RIGHT_IN_DISTRIBUTION = 1e-6


@dataclass(frozen=True)
class Estimate:
    """What many calls of one function on one input show."""

    law: list[float] | None  # token frequencies (None: a call the check cannot count)
    invalid: str | None = None  # why the check fails it on a call, when it does
    calls: int = 0


@dataclass(frozen=True)
class InputPower:
    """One function against one input, at the input's declared calls and look."""

    per_call: float  # chi-square noncentrality per call, bins pooled as at the end
    impossible: float  # the share of calls returning a token the law gives 0
    end_miss: float  # P(it passes at all the input's calls)
    look_miss: float  # P(the first look settles it); 0 without a look
    invalid: str | None = None
    indistinct: bool = False  # the estimate is the law's within its own noise

    @property
    def miss(self) -> float:
        if self.invalid is not None:
            return 0.0
        return min(1.0, self.end_miss + self.look_miss)

    @property
    def right_in_distribution(self) -> bool:
        return self.invalid is None and self.impossible == 0 and self.indistinct


def estimate(
    judge: Judge, exercise: Exercise, code: str, item: SamplerInput, calls: int = ESTIMATE_CALLS
) -> Estimate:
    """``code``'s function on ``item`` over ``calls`` calls of the real check, in one job."""
    check = exercise.sampler
    assert check is not None
    probe = dataclasses.replace(item, trials=calls, first_look=None, seed=ESTIMATE_SEED)
    stage = [Chunk(0, 0, calls, ESTIMATE_SEED)]
    ((_, job),) = sampler_jobs.check_jobs_for(
        dataclasses.replace(check, inputs=(probe,)),
        code,
        exercise.helpers_code,
        exercise.limits,
        stage,
    )
    result = judge.pool.submit(job).result(timeout=600)
    if result.setup is not None or not result.cases or result.cases[0].value is None:
        return Estimate(None, "does not load or does not return")
    counts = check_counts.read(result.cases[0].value, SamplerCounts)
    if not isinstance(counts, SamplerCounts):
        record = counts.record if isinstance(counts, InvalidTrial) else None
        trial, reason = (record.get("trial"), record.get("reason")) if record else ("?", None)
        return Estimate(None, f"fails on call {trial}: {reason}")
    return Estimate([c / calls for c in counts.counts], calls=calls)


def noncentrality(law: list[float], target: tuple[float, ...], calls: int, minimum: float) -> float:
    """Per-call noncentrality of Pearson's statistic for ``law`` against ``target``, over the
    bins the check pools at ``calls`` (the law's zero bins left out: those fail for certain)."""
    keep = [t for t, x in enumerate(target) if x > 0]
    mass = sum(law[t] for t in keep)
    if mass <= 0:
        return math.inf
    found = [law[t] / mass for t in keep]  # given that the call returned a possible token
    want = [target[t] for t in keep]
    statistic, _ = statistics.chi2_statistic(
        [calls * x for x in found], [calls * x for x in want], minimum
    )
    return statistic / calls


def _df(target: tuple[float, ...], calls: int, minimum: float) -> int:
    return statistics.chi2_statistic(
        [calls * x for x in target], [calls * x for x in target], minimum
    )[1]


def input_power(
    check: SamplerCheck, item: SamplerInput, found: Estimate, settle: float = CONTINUE
) -> InputPower:
    if found.law is None:
        return InputPower(math.inf, 1.0, 0.0, 0.0, found.invalid)
    law, target = found.law, item.law
    impossible = sum(x for x, p in zip(law, target, strict=True) if p == 0)
    per_call = noncentrality(law, target, item.trials, MIN_EXPECTED)
    df = _df(target, item.trials, MIN_EXPECTED)
    threshold = statistics.chi2_threshold(FALSE_FAIL / check.tests / CHI2_SAFETY, df)
    end = statistics.noncentral_chi2_cdf(threshold, df, per_call * item.trials)
    end = min(end, (1.0 - impossible) ** item.trials)
    look = 0.0
    if item.first_look is not None:
        n = item.first_look
        at = noncentrality(law, target, n, LOOK_MIN_EXPECTED)
        look_df = _df(target, n, LOOK_MIN_EXPECTED)
        bound = statistics.chi2_threshold(settle, look_df)
        look = statistics.noncentral_chi2_cdf(bound, look_df, at * n)
        look = min(look, (1.0 - impossible) ** n)
    estimated = noncentrality(law, target, found.calls, MIN_EXPECTED) * found.calls
    noise = statistics.chi2_threshold(RIGHT_IN_DISTRIBUTION, _df(target, found.calls, MIN_EXPECTED))
    return InputPower(per_call, impossible, end, look, indistinct=estimated <= noise)


def correct_settles(judge: Judge, exercise: Exercise, item: SamplerInput) -> bool | None:
    """Whether the reference's tokens at ``item``'s seed settle at its first look (None: no
    look). Every sampler that follows the rule gives these very tokens."""
    check = exercise.sampler
    assert check is not None and item.first_look is not None
    stage = [Chunk(0, 0, item.first_look, item.seed)]
    ((_, job),) = sampler_jobs.check_jobs_for(
        dataclasses.replace(check, inputs=(item,)),
        exercise.solution_code,
        exercise.helpers_code,
        exercise.limits,
        stage,
    )
    result = judge.pool.submit(job).result(timeout=600)
    counts = check_counts.read(result.cases[0].value, SamplerCounts)
    settled = isinstance(counts, SamplerCounts) and sampler.readable(item, counts)
    return settled and not sampler.goes_on(item, counts)


def golden_files(exercise_id: str) -> list[Path]:
    folders = [
        CHECKOUT / "tests" / "solutions" / exercise_id,
        CHECKOUT / "exercises" / exercise_id / "solutions",
    ]
    return sorted(p for folder in folders for p in folder.glob("*.py"))


def _sized(check: SamplerCheck, look: int | None, trials: int | None) -> SamplerCheck:
    inputs = tuple(
        dataclasses.replace(
            item,
            trials=trials or item.trials,
            first_look=look if look is not None else item.first_look,
        )
        for item in check.inputs
    )
    return dataclasses.replace(check, inputs=inputs)


def _text(x: float) -> str:
    return "0" if x == 0 else f"{x:.0e}" if x < 0.01 else f"{x:.2f}"


def report(
    judge: Judge,
    exercise: Exercise,
    calls: int,
    look: int | None,
    trials: int | None,
    settle: float = CONTINUE,
) -> None:
    check = exercise.sampler
    assert check is not None
    sized = _sized(check, look, trials)
    print(
        f"\n{exercise.id}: "
        + "; ".join(
            f"input {k + 1} ({item.name}) {item.trials} calls, look {item.first_look}"
            for k, item in enumerate(sized.inputs)
        )
    )
    for k, item in enumerate(sized.inputs):
        if item.first_look is not None:
            settles = correct_settles(judge, exercise, item)
            print(
                f"  input {k + 1}: a correct sampler at seed {item.seed} "
                + ("settles at the look" if settles else "GOES ON past the look")
            )
    for path in golden_files(exercise.id):
        code = path.read_text(encoding="utf-8")
        rows = [
            input_power(sized, item, estimate(judge, exercise, code, item, calls), settle)
            for item in sized.inputs
        ]
        total = math.prod(row.miss for row in rows)
        parts = []
        for row in rows:
            if row.invalid is not None:
                parts.append(row.invalid)
            elif row.right_in_distribution:
                parts.append("right in distribution")
            else:
                parts.append(
                    f"miss {_text(row.miss)} (look {_text(row.look_miss)}, "
                    f"end {_text(row.end_miss)}; "
                    f"{row.per_call:.3f}/call, {100 * row.impossible:.0f}% impossible)"
                )
        print(f"  {path.stem:36} all inputs {_text(total):>6}  " + " | ".join(parts))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exercise", action="append", help="an exercise id (repeatable)")
    parser.add_argument("--estimate", type=int, default=ESTIMATE_CALLS, help="calls per law")
    parser.add_argument("--look", type=int, help="what if every input looked at this many calls")
    parser.add_argument("--trials", type=int, help="what if every input made this many calls")
    parser.add_argument(
        "--settle",
        type=float,
        default=CONTINUE,
        help="what if a look settled under this upper quantile",
    )
    args = parser.parse_args(argv)
    catalog = Catalog.load()
    chosen = [
        e for e in catalog if e.sampler is not None and (not args.exercise or e.id in args.exercise)
    ]
    judge = Judge.create(workers=2, queue_size=64)
    try:
        for exercise in chosen:
            report(judge, exercise, args.estimate, args.look, args.trials, args.settle)
    finally:
        judge.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
