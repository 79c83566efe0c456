"""The checks over a whole function (Submit), behind one interface for the judge.

An exercise declares at most one: the distribution check (``[distribution]``, a driver of the
exercise's own in its folder) or the sampler check (``[sampler]``, the judge's own driver on the
exercise's declared inputs). Each runs as jobs of the pool in two stages (a first look, then the
rest of the trials where the look did not settle them) and turns the merged counts into report
rows. The judge drives them without knowing which one it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from app.grading import distribution, distribution_jobs, distribution_verdict, sampler, sampler_jobs
from app.grading.distribution_jobs import Batch, Chunk
from app.schemas import CaseResult
from sandbox import Job, RunResult

if TYPE_CHECKING:
    from app.catalog import Exercise


class WholeCheck(Protocol):
    def jobs(self, code: str, stage: list[Chunk] | None = None) -> list[tuple[Batch, Job]]:
        """The learner's code on ``stage`` (the first stage unless given), a job per batch."""
        ...

    def merged(self, done: list[tuple[Batch, RunResult]]) -> RunResult:
        """The jobs' results as one, a case per declared item."""
        ...

    def second_stage(self, looked: RunResult) -> list[Chunk]:
        """The rest of the trials of each item whose first look did not settle it."""
        ...

    def rows(
        self, result: RunResult, limits_text: dict[str, str], exact_failed: bool
    ) -> list[CaseResult]:
        """One report row per declared item."""
        ...


@dataclass(frozen=True)
class DistributionRuns:
    exercise: Exercise
    check: distribution.DistributionCheck

    def jobs(self, code: str, stage: list[Chunk] | None = None) -> list[tuple[Batch, Job]]:
        exercise = self.exercise
        return distribution_jobs.check_jobs(
            self.check,
            code,
            exercise.entry_point,
            exercise.helpers_code,
            exercise.limits,
            stage=stage,
        )

    def merged(self, done: list[tuple[Batch, RunResult]]) -> RunResult:
        return distribution_jobs.merged_result(self.check, done)

    def second_stage(self, looked: RunResult) -> list[Chunk]:
        return distribution_jobs.second_stage(self.check, looked)

    def rows(
        self, result: RunResult, limits_text: dict[str, str], exact_failed: bool
    ) -> list[CaseResult]:
        return distribution_verdict.check_rows(self.check, result, limits_text, exact_failed)


@dataclass(frozen=True)
class SamplerRuns:
    exercise: Exercise
    check: sampler.SamplerCheck

    def jobs(self, code: str, stage: list[Chunk] | None = None) -> list[tuple[Batch, Job]]:
        exercise = self.exercise
        return sampler_jobs.check_jobs_for(
            self.check, code, exercise.helpers_code, exercise.limits, stage
        )

    def merged(self, done: list[tuple[Batch, RunResult]]) -> RunResult:
        return sampler_jobs.merged_result(self.check, done)

    def second_stage(self, looked: RunResult) -> list[Chunk]:
        return sampler_jobs.second_stage(self.check, looked)

    def rows(
        self, result: RunResult, limits_text: dict[str, str], exact_failed: bool
    ) -> list[CaseResult]:
        return sampler.check_rows(self.check, result, limits_text, exact_failed)


def of(exercise: Exercise) -> WholeCheck | None:
    """The exercise's check over the whole function, if it declares one."""
    if exercise.distribution is not None:
        return DistributionRuns(exercise, exercise.distribution)
    if exercise.sampler is not None:
        return SamplerRuns(exercise, exercise.sampler)
    return None
