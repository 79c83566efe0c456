"""The sampler check as jobs of the pool, in the distribution check's two stages.

Each input's trials are cut into chunks (its first look alone first), packed into jobs of at
most ``distribution_jobs.CHUNK_TRIALS`` calls, a case per chunk, run by the judge's own driver
(``app/grading/sampler_driver.py``) in the learner's confined child. A chunk's generator is seeded
apart from the others', so the added counts are those of one run of all the input's trials.
The second stage runs the rest of an input's trials only when its look did not settle it.
"""

from __future__ import annotations

from pathlib import Path

from app.grading import distribution_jobs, sampler
from app.grading.check_counts import SamplerCounts
from app.grading.distribution_jobs import Batch, Chunk
from app.grading.sampler import SamplerCheck
from sandbox import CaseRun, Job, Limits, Outcome, RunResult

DRIVER = (Path(__file__).with_name("sampler_driver.py")).read_text(encoding="utf-8")
# The driver's own arguments, after the exercise's: names no exercise parameter can have.
DRIVER_PARAMETERS = {
    "sampler:rng_at": "value",
    "sampler:bins": "value",
    "sampler:must_draw": "value",
    "sampler:trials": "value",
    "sampler:seed": "value",
}


def first_stage(check: SamplerCheck) -> list[Chunk]:
    """What runs at once: each input's first look, or all the trials of one without a look."""
    stage: list[Chunk] = []
    for index, item in enumerate(check.inputs):
        mine = distribution_jobs.chunks(item, index)
        stage += mine[:1] if item.first_look is not None else mine
    return stage


def second_stage(check: SamplerCheck, looked: RunResult) -> list[Chunk]:
    """The rest of the trials of each input whose first look neither settled it nor failed it."""
    if looked.setup is not None:
        return []
    stage: list[Chunk] = []
    for index, (item, run) in enumerate(zip(check.inputs, looked.cases, strict=False)):
        if run.outcome is Outcome.returned and sampler.goes_on(item, run.value):
            stage += distribution_jobs.chunks(item, index)[1:]
    return stage


def check_jobs_for(
    check: SamplerCheck,
    code: str,
    helpers: str,
    limits: Limits,
    stage: list[Chunk] | None = None,
) -> list[tuple[Batch, Job]]:
    """The learner's code and the driver on ``stage`` (the first stage unless given), a job per
    batch of chunks; a job's budget scales with its calls as the distribution check's does."""
    parameters = {**check.parameters, **DRIVER_PARAMETERS}
    jobs = []
    for batch in distribution_jobs.batches(first_stage(check) if stage is None else stage):
        cases = []
        for chunk in batch:
            item = check.inputs[chunk.pair]
            cases.append(
                {
                    **item.input,
                    "sampler:rng_at": check.rng_at,
                    "sampler:bins": item.bins,
                    "sampler:must_draw": item.must_draw,
                    "sampler:trials": chunk.trials,
                    "sampler:seed": chunk.seed,
                }
            )
        job = Job(
            code=code,
            entry_point=check.entry_point,
            cases=tuple(cases),
            parameters=parameters,
            limits=distribution_jobs.trials_limits(limits, sum(c.trials for c in batch)),
            helpers=helpers,
            driver=DRIVER,
        )
        jobs.append((batch, job))
    return jobs


def merged_result(check: SamplerCheck, done: list[tuple[Batch, RunResult]]) -> RunResult:
    """The jobs' results as one, a case per input in order (what ``sampler.check_rows`` reads),
    a returned case's value the input's ``check_counts.Counts`` rather than a tagged value;
    a job that did not load makes the whole check unloaded (every job runs the same code)."""
    return distribution_jobs.merged_by_item(len(check.inputs), done, _input_run)


def _input_run(runs: list[tuple[Chunk, CaseRun]]) -> CaseRun:
    """One input's chunks as one case whose value is the input's typed counts
    (``check_counts``); an invalid call keeps only its plain scalar fields."""
    return distribution_jobs.added_run(
        runs,
        SamplerCounts,
        renumbered=lambda counts, first: counts,  # a sampler's counts name no trial
        invalid=lambda record, first: record.numbered_from(first, scalars_only=True),
    )
