"""The distribution check as jobs of the pool: each pair cut into chunks of trials, each chunk a
job, and their counts added back into one result per pair for ``app.distribution``.

Chunks, so that a long check runs on every core the pool has, beside the Submit's other jobs,
instead of as one long job at the end with a core idle beside it. A chunk's steps are
independent of the others' (drafts and the learner's generator seeded apart), so the added
counts are those of one run of all the pair's trials, and the statistics do not change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from app import checks
from app.distribution import DistributionCheck, Pair
from sandbox import CaseRun, ErrorInfo, Job, Limits, Outcome, RunResult

# CPU time the check allows per call of the step: the reference takes about 0.1 ms here, so a
# correct step many times slower still passes (a chunk of 500 trials: one second of CPU).
STEP_ALLOWANCE_MS = 2.0
# Trials per job at most: as many as fit the exercise's one-second budget at STEP_ALLOWANCE_MS,
# so that a chunk keeps the exercise's limits (and its warm spares). Smaller chunks ran slower
# end to end once the policy's guards got faster: each job costs a child's set-up (paired, one
# run: chunks of 250 gave a Submit p50 of 81.7 ms and 63 ms of check CPU, 500 gave 73.6 and 51).
CHUNK_TRIALS = 500
# Chunk k of a pair seeds its drafts with seed + k * SEED_STRIDE (the learner's generator with
# one more, as the driver does): chunk 0 keeps the pair's own seed.
SEED_STRIDE = 1000
PARAMETERS = {"p": "ndarray", "q": "ndarray", "trials": "value", "seed": "value"}


@dataclass(frozen=True)
class Chunk:
    """Some of one pair's trials, run as a job of its own."""

    pair: int  # index in the check's pairs
    first_trial: int  # trials of the pair's earlier chunks
    trials: int
    seed: int


def chunks(pair: Pair, index: int, most: int = CHUNK_TRIALS) -> list[Chunk]:
    """The pair's trials in near-equal chunks of at most ``most``, in order."""
    count = max(1, math.ceil(pair.trials / most))
    sizes = [pair.trials // count + (k < pair.trials % count) for k in range(count)]
    starts = [sum(sizes[:k]) for k in range(count)]
    return [
        Chunk(index, start, size, pair.seed + k * SEED_STRIDE)
        for k, (start, size) in enumerate(zip(starts, sizes, strict=True))
    ]


def check_jobs(
    check: DistributionCheck,
    code: str,
    entry_point: str,
    helpers: str,
    limits: Limits,
    most: int = CHUNK_TRIALS,
) -> list[tuple[Chunk, Job]]:
    """The learner's code and the trusted driver, one job per chunk (pairs in their order).

    The check calls the step hundreds of times where a case calls it once, so each job has a
    time budget of its own, scaled by its trials: the exercise's (one second for all the exact
    cases) made a correct step only two or three times slower than the reference fail the
    check, and the reference itself on a busy machine (red team, round 2). A chunk that fits
    the exercise's budget keeps its limits exactly, so its job runs in one of the warm spare
    children, which are forked with those limits.
    """
    jobs = []
    for index, pair in enumerate(check.pairs):
        for chunk in chunks(pair, index, most):
            budget = max(limits.time_ms, math.ceil(chunk.trials * STEP_ALLOWANCE_MS))
            inputs = {**pair.inputs(), "trials": chunk.trials, "seed": chunk.seed}
            job = Job(
                code=code,
                entry_point=entry_point,
                cases=(inputs,),
                parameters=PARAMETERS,
                limits=limits if budget == limits.time_ms else replace(limits, time_ms=budget),
                helpers=helpers,
                driver=check.driver,
            )
            jobs.append((chunk, job))
    return jobs


NO_ANSWER = CaseRun(
    outcome=Outcome.crashed,
    error=ErrorInfo(type="Sandbox", message="the check's process gave no answer"),
)


def merged_result(check: DistributionCheck, done: list[tuple[Chunk, RunResult]]) -> RunResult:
    """The chunks' results as one, a case per pair in the pairs' order (what
    ``distribution.check_rows`` and the report's verdict read). A chunk that did not load makes
    the whole check unloaded (every chunk runs the same code)."""
    setup = next((result.setup for _, result in done if result.setup is not None), None)
    cases = []
    for index in range(len(check.pairs)):
        runs = [
            (chunk, result.cases[0] if result.cases else NO_ANSWER)
            for chunk, result in done
            if chunk.pair == index
        ]
        cases.append(_pair_run(runs) if runs else NO_ANSWER)
    return RunResult(
        layers=done[0][1].layers if done else {},
        setup=setup,
        cases=[] if setup is not None else cases,
        wall_ms=max((result.wall_ms for _, result in done), default=0.0),
        cpu_ms=sum(result.cpu_ms for _, result in done),
        demoted=any(result.demoted for _, result in done),
    )


def _pair_run(runs: list[tuple[Chunk, CaseRun]]) -> CaseRun:
    """One pair's chunks as one case: the first that did not return, or the first whose counts
    the check cannot use (an invalid trial numbered within the pair), or the counts added."""
    for _, run in runs:
        if run.outcome is not Outcome.returned:
            return run
    added: dict[str, Any] | None = None
    for chunk, run in runs:
        counts = checks.plain(run.value)
        if isinstance(counts, dict) and isinstance(counts.get("invalid"), dict):
            invalid = dict(counts["invalid"])
            if type(invalid.get("trial")) is not int:
                return run  # the row says the check could not read it, as it would have
            invalid["trial"] += chunk.first_trial
            try:
                return replace(run, value=tag({"invalid": invalid}))
            except TypeError:  # what a well-behaved driver never sends: leave it as it came
                return run
        if not _sound(counts):
            return run  # what the check says of counts that do not add up, as they came
        if added is None:
            added = {key: counts[key] for key in ("trials", "first", "lengths", "draws")}
        elif len(counts["first"]) != len(added["first"]) or len(counts["lengths"]) != len(
            added["lengths"]
        ):
            return run
        else:
            added = {
                "trials": added["trials"] + counts["trials"],
                "first": [a + b for a, b in zip(added["first"], counts["first"], strict=True)],
                "lengths": [
                    a + b for a, b in zip(added["lengths"], counts["lengths"], strict=True)
                ],
                "draws": added["draws"] + counts["draws"],
            }
    first = runs[0][1]
    return replace(first, value=tag(added), duration_ms=sum(run.duration_ms for _, run in runs))


def tag(value: Any) -> dict[str, Any]:
    """Plain data (what ``checks.plain`` gives: numbers, strings, lists, dicts) in the
    sandbox's tagged form, which ``checks.plain`` reads back."""
    if type(value) is dict:
        return {"t": "dict", "v": [[tag(key), tag(item)] for key, item in value.items()]}
    if type(value) is list:
        return {"t": "list", "v": [tag(item) for item in value]}
    if value is None:
        return {"t": "none"}
    kind = {str: "str", int: "int", bool: "bool", float: "float"}.get(type(value))
    if kind is None:
        raise TypeError(f"not plain data: {type(value).__name__}")
    return {"t": kind, "v": value}


def _sound(counts: Any) -> bool:
    """Counts shaped as the driver returns them (their sums are checked per pair later)."""
    if not isinstance(counts, dict):
        return False
    numbers = [counts.get("trials"), counts.get("draws")]
    lists = [counts.get("first"), counts.get("lengths")]
    return all(type(n) is int and n >= 0 for n in numbers) and all(
        type(items) is list and all(type(x) is int and x >= 0 for x in items) for items in lists
    )
