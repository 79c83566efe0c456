"""The distribution check as jobs of the pool: each pair cut into chunks of trials, the chunks
packed into jobs (a case each), and their counts added back into one result per pair for
``app.grading.distribution_verdict``.

Two stages. The first runs at once, beside the Submit's other jobs: each pair's first look (or
all its trials, for a pair without one). The second runs the rest of a pair's trials only when
its look did not settle it. Chunks, so that a long check runs on every core the pool has
instead of as one long job at the end with a core idle beside it; packed, so that short ones
share a child's set-up. A chunk's steps are independent of the others' (drafts and the
learner's generator seeded apart), so the added counts are those of one run of all the pair's
trials, and the statistics do not change.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar

from app.grading import check_counts, distribution_verdict
from app.grading.check_counts import DraftCounts, InvalidTrial, SamplerCounts, Unreadable
from app.grading.distribution import DistributionCheck
from sandbox import CaseRun, ErrorInfo, Job, Limits, Outcome, RunResult

# CPU time the check allows per call of the step: many times the reference's, so a correct
# step much slower than it still passes (a chunk of 500 trials: one second of CPU).
STEP_ALLOWANCE_MS = 2.0
# Trials per job at most: as many as fit the exercise's one-second budget at STEP_ALLOWANCE_MS,
# so that a chunk keeps the exercise's limits (and its warm spares). Smaller chunks ran slower
# end to end once the policy's guards got faster: each job costs a child's set-up (the paired
# runs are in docs/performance.md).
CHUNK_TRIALS = 500
# Chunk k of a pair seeds its drafts with seed + k * SEED_STRIDE (the learner's generator with
# one more, as the driver does): chunk 0 keeps the pair's own seed.
SEED_STRIDE = 1000
PARAMETERS = {"p": "ndarray", "q": "ndarray", "trials": "value", "seed": "value"}


@dataclass(frozen=True)
class Chunk:
    """Some of one pair's trials, run as one case of a check job."""

    pair: int  # index in the check's pairs
    first_trial: int  # trials of the pair's earlier chunks
    trials: int
    seed: int


# The chunks one job runs, a case each, in order.
Batch = tuple[Chunk, ...]
# What one item's chunks add up to: a pair's counts, or a sampler input's.
AddedCounts = TypeVar("AddedCounts", DraftCounts, SamplerCounts)


class Trials(Protocol):
    """What chunking needs of a check's declared item (a pair, a sampler's input)."""

    @property
    def trials(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def first_look(self) -> int | None: ...


def chunks(pair: Trials, index: int, most: int = CHUNK_TRIALS) -> list[Chunk]:
    """The pair's trials in chunks of at most ``most``, in order: its first look alone first
    (when it declares one), then the rest in near-equal chunks. Chunk k is seeded with
    seed + k * SEED_STRIDE."""
    look = [pair.first_look] if pair.first_look is not None else []
    rest = pair.trials - sum(look)
    count = max(1, math.ceil(rest / most))
    sizes = look + [rest // count + (k < rest % count) for k in range(count)]
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    return [
        Chunk(index, start, size, pair.seed + k * SEED_STRIDE)
        for k, (start, size) in enumerate(zip(starts, sizes, strict=True))
    ]


def first_stage(check: DistributionCheck, most: int = CHUNK_TRIALS) -> list[Chunk]:
    """What runs at once: each pair's first look, or all the trials of a pair without one."""
    stage: list[Chunk] = []
    for index, pair in enumerate(check.pairs):
        mine = chunks(pair, index, most)
        stage += mine[:1] if pair.first_look is not None else mine
    return stage


def second_stage(
    check: DistributionCheck, looked: RunResult, most: int = CHUNK_TRIALS
) -> list[Chunk]:
    """The rest of the trials of each pair whose first look (a case of ``looked``, as
    ``merged_result`` gives it) neither settled it nor failed it for certain."""
    if looked.setup is not None:
        return []
    stage: list[Chunk] = []
    for index, (pair, run) in enumerate(zip(check.pairs, looked.cases, strict=False)):
        if run.outcome is Outcome.returned and distribution_verdict.goes_on(pair, run.value):
            stage += chunks(pair, index, most)[1:]
    return stage


def batches(stage: list[Chunk], most: int = CHUNK_TRIALS) -> list[Batch]:
    """Chunks packed, in order, into jobs of at most ``most`` trials: a job's set-up costs a
    child's, so short chunks share one; each job is one core's work."""
    packed: list[list[Chunk]] = []
    for chunk in stage:
        if packed and sum(c.trials for c in packed[-1]) + chunk.trials <= most:
            packed[-1].append(chunk)
        else:
            packed.append([chunk])
    return [tuple(batch) for batch in packed]


def trials_limits(limits: Limits, trials: int) -> Limits:
    """The limits of a check's job of ``trials`` calls: the exercise's, with a time budget of
    STEP_ALLOWANCE_MS a call where that is more (why: ``check_jobs``)."""
    budget = max(limits.time_ms, math.ceil(trials * STEP_ALLOWANCE_MS))
    return limits if budget == limits.time_ms else replace(limits, time_ms=budget)


def check_jobs(
    check: DistributionCheck,
    code: str,
    entry_point: str,
    helpers: str,
    limits: Limits,
    most: int = CHUNK_TRIALS,
    stage: list[Chunk] | None = None,
) -> list[tuple[Batch, Job]]:
    """The learner's code and the trusted driver on ``stage`` (the first stage unless given),
    a job per batch of chunks, a case per chunk.

    The check calls the step hundreds of times where a case calls it once, so each job has a
    time budget of its own, scaled by its trials: the exercise's (one second for all the exact
    cases) made a correct step only two or three times slower than the reference fail the
    check, and the reference itself on a busy machine. A job that fits
    the exercise's budget keeps its limits exactly, so it runs in one of the warm spare
    children, which are forked with those limits.
    """
    jobs = []
    for batch in batches(first_stage(check, most) if stage is None else stage, most):
        job = Job(
            code=code,
            entry_point=entry_point,
            cases=tuple(
                {**check.pairs[c.pair].inputs(), "trials": c.trials, "seed": c.seed} for c in batch
            ),
            parameters=PARAMETERS,
            limits=trials_limits(limits, sum(chunk.trials for chunk in batch)),
            helpers=helpers,
            driver=check.driver,
        )
        jobs.append((batch, job))
    return jobs


NO_ANSWER = CaseRun(
    outcome=Outcome.crashed,
    error=ErrorInfo(type="Sandbox", message="the check's process gave no answer"),
)


def merged_result(check: DistributionCheck, done: list[tuple[Batch, RunResult]]) -> RunResult:
    """The jobs' results as one, a case per pair in the pairs' order (what
    ``distribution_verdict.check_rows`` and the report's verdict read), a returned case's value
    the pair's ``check_counts.Counts`` rather than a tagged value. A job that did not load
    makes the whole check unloaded (every job runs the same code)."""
    return merged_by_item(len(check.pairs), done, _pair_run)


def merged_by_item(
    items: int,
    done: list[tuple[Batch, RunResult]],
    one_item: Callable[[list[tuple[Chunk, CaseRun]]], CaseRun],
) -> RunResult:
    """A check's jobs' results as one, a case per item (pair or input) in order: each item's
    chunks, in trial order, made one case by ``one_item``; an item no job answered for is
    NO_ANSWER. The sampler check merges the same way (sampler_jobs.merged_result)."""
    setup = next((result.setup for _, result in done if result.setup is not None), None)
    runs = [
        (chunk, result.cases[k] if k < len(result.cases) else NO_ANSWER)
        for batch, result in done
        for k, chunk in enumerate(batch)
    ]
    cases = []
    for index in range(items):
        mine = sorted(
            ((chunk, run) for chunk, run in runs if chunk.pair == index),
            key=lambda item: item[0].first_trial,
        )
        cases.append(one_item(mine) if mine else NO_ANSWER)
    return RunResult(
        layers=done[0][1].layers if done else {},
        setup=setup,
        cases=[] if setup is not None else cases,
        wall_ms=max((result.wall_ms for _, result in done), default=0.0),
        cpu_ms=sum(result.cpu_ms for _, result in done),
        demoted=any(result.demoted for _, result in done),
    )


def _pair_run(runs: list[tuple[Chunk, CaseRun]]) -> CaseRun:
    """One pair's chunks as one case whose value is the pair's typed counts (``check_counts``),
    each chunk's first outside token numbered within the pair."""
    return added_run(
        runs,
        DraftCounts,
        renumbered=lambda counts, first: counts.numbered_from(first),
        invalid=lambda record, first: record.numbered_from(first),
    )


def added_run(
    runs: list[tuple[Chunk, CaseRun]],
    shape: type[AddedCounts],
    renumbered: Callable[[AddedCounts, int], AddedCounts],
    invalid: Callable[[InvalidTrial, int], InvalidTrial],
) -> CaseRun:
    """One item's chunks as one case whose value is the item's typed counts of ``shape``: the
    first chunk that did not return, the first invalid call (``invalid`` numbers it within the
    item), the first whose counts the check cannot use or that do not add up, or the counts
    added (each chunk's ``renumbered`` within the item first)."""
    for _, run in runs:
        if run.outcome is not Outcome.returned:
            return run
    added: AddedCounts | None = None
    for chunk, run in runs:
        counts = check_counts.read(run.value, shape)
        if isinstance(counts, InvalidTrial):
            return replace(run, value=invalid(counts, chunk.first_trial))
        if not isinstance(counts, shape):
            return replace(run, value=counts)
        counts = renumbered(counts, chunk.first_trial)
        added = counts if added is None else added.then(counts)
        if added is None:  # chunks that do not count the same tokens
            return replace(run, value=Unreadable())
    first = runs[0][1]
    return replace(first, value=added, duration_ms=sum(run.duration_ms for _, run in runs))
