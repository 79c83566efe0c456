"""What one grade runs, decided before anything runs: its cases in order, the names of its random
ones, and its jobs by role (the learner's, the reference's on the random cases, the check's
stages, the trace).

Pure: nothing here starts a job or reads a clock. ``app.grading.judge`` hands the jobs to the
pool, awaits them by role and gives what they return to ``app.grading.reports``.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from app.catalog import Case, Exercise
from app.grading import case_sets, whole_checks
from app.grading.case_sets import RandomSet
from app.grading.distribution_jobs import Batch
from app.schemas import Mode
from sandbox import Job, RunResult


@dataclass(frozen=True)
class RunningGrade:
    """A plan's jobs once the pool has them: the futures of their results, by role."""

    learner: Future[RunResult]
    # The reference's results on the random cases: started ahead, or beside the learner's job
    # (None: the grade has no random cases).
    reference: Future[RunResult] | None
    check_first_stage: list[tuple[Batch, Future[RunResult]]]


@dataclass(frozen=True)
class GradePlan:
    """One Run or Submit, before it runs: what it grades and which jobs grade it."""

    exercise: Exercise
    code: str
    mode: Mode
    stored_cases: list[Case]  # the examples, and for Submit the extra cases after them
    # Random inputs, whose expected outputs the reference gives: a replayed seed's first, then
    # the fresh ones of ``seed``; and the names their rows carry, in the same order.
    random_inputs: list[dict[str, Any]]
    random_names: list[str]
    seed: int | None  # the fresh random cases' seed (None: the grade has none)
    replayed_seed: int | None
    learner: Job
    reference: Job | None  # None: no random cases, or the reference already ran on them ahead
    reference_ahead: Future[RunResult] | None
    check: whole_checks.WholeCheck | None
    check_first_stage: list[tuple[Batch, Job]]

    def jobs(self) -> list[Job]:
        """Every job the grade starts with, admitted together (all or none), so the reference
        and the check run beside the learner's job, not after it.

        Longest first: the check's jobs (hundreds of steps each) take the fast slots, and the
        learner's and the reference's shorter jobs fill in beside them, so the cores finish
        together (the check last, alone on one core, was the Submit's tail)."""
        check = [job for _, job in self.check_first_stage]
        return [*check, self.learner, *([self.reference] if self.reference is not None else [])]

    def running(self, futures: list[Future[RunResult]]) -> RunningGrade:
        """``futures`` of ``jobs()``, in their order, by role."""
        stage = len(self.check_first_stage)
        batches = [batch for batch, _ in self.check_first_stage]
        reference = futures[stage + 1] if self.reference is not None else self.reference_ahead
        return RunningGrade(
            learner=futures[stage],
            reference=reference,
            check_first_stage=list(zip(batches, futures[:stage], strict=True)),
        )

    def random_cases(self, reference_result: RunResult | None) -> list[Case]:
        """The random inputs as cases, expecting what the reference returned on them."""
        exercise, inputs, names = self.exercise, self.random_inputs, self.random_names
        return case_sets.expected_cases(exercise, inputs, reference_result, names, "random")

    def check_second_stage(self, first_stage_result: RunResult) -> list[tuple[Batch, Job]]:
        """The rest of the trials of each item the check's first look did not settle (none:
        the first stage settled the check)."""
        assert self.check is not None
        rest = self.check.second_stage(first_stage_result)
        return self.check.jobs(self.code, rest) if rest else []

    def trace_job(self, inputs: list[dict[str, Any]]) -> Job:
        """The reference again on random inputs the learner failed, traced this time, for the
        feedback at the first divergence."""
        return self.exercise.reference_job(inputs, traced=True)


def draws_random_cases(exercise: Exercise, mode: Mode) -> bool:
    """Whether the grade needs a set of fresh random cases (a Submit of an exercise that has
    them)."""
    return mode is Mode.submit and exercise.random_cases > 0


def plan_grade(
    exercise: Exercise,
    code: str,
    mode: Mode,
    replay_seed: int | None = None,
    fresh: RandomSet | None = None,
) -> GradePlan:
    """The plan of a Run or a Submit of ``code``. A Submit with random cases grades the
    ``fresh`` set (its reference job started ahead, ``fresh.reference_ahead``, is given only
    once it has answered) and, given ``replay_seed``, that seed's cases before them. Run grades
    the examples only."""
    submit = mode is Mode.submit
    stored = case_sets.stored_cases(exercise, submit)
    inputs: list[dict[str, Any]] = []
    names: list[str] = []
    seed = replayed = None
    if fresh is not None and draws_random_cases(exercise, mode):
        # A seed the client chose replays those cases, and fresh ones are drawn beside them
        # every time: a table of answers learnt from one report never passes a Submit.
        seed, replayed = fresh.seed, replay_seed
        if replayed is not None:
            replay = case_sets.random_inputs(exercise, replayed)
            inputs += replay
            names += [f"replay of seed {replayed}: random {n}" for n in range(1, len(replay) + 1)]
        inputs += fresh.inputs
        names += [f"random {n}" for n in range(1, len(fresh.inputs) + 1)]
    # Replayed cases need a run of their own, so the reference runs on all of them together.
    ahead = fresh.reference_ahead if fresh is not None and replayed is None and inputs else None
    reference = exercise.reference_job(inputs, traced=False) if inputs and ahead is None else None
    check = whole_checks.of(exercise) if submit else None
    return GradePlan(
        exercise=exercise,
        code=code,
        mode=mode,
        stored_cases=stored,
        random_inputs=inputs,
        random_names=names,
        seed=seed,
        replayed_seed=replayed,
        learner=exercise.job(code, [case.input for case in stored] + inputs),
        reference=reference,
        reference_ahead=ahead,
        check=check,
        check_first_stage=check.jobs(code) if check is not None else [],
    )
