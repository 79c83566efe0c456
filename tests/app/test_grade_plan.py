"""A grade's plan, built without running anything: which cases, in which order, with which names,
and the jobs by role, as the judge hands them to the pool."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from app.catalog import Catalog, Exercise
from app.grading import case_sets
from app.grading.case_sets import RandomSet
from app.grading.grade_plan import draws_random_cases, plan_grade
from app.schemas import Mode
from sandbox import RunResult

CODE = "def speculative_step(p, q, draft, rng):\n    return [0]\n"


@pytest.fixture(scope="module")
def resample(catalog: Catalog) -> Exercise:
    exercise = catalog.get("speculative-decoding-resample")
    assert exercise is not None and exercise.distribution is not None
    return exercise


def test_run_plans_the_learners_job_on_the_examples_alone(resample: Exercise) -> None:
    assert not draws_random_cases(resample, Mode.run)
    plan = plan_grade(resample, CODE, Mode.run, replay_seed=7)
    assert plan.stored_cases == list(resample.cases) and plan.random_inputs == []
    assert (plan.seed, plan.replayed_seed, plan.check) == (None, None, None)
    assert plan.jobs() == [plan.learner]
    assert plan.learner.code == CODE and not plan.learner.trusted
    assert list(plan.learner.cases) == [case.input for case in resample.cases]


def test_submit_plans_the_check_first_then_the_learner_then_the_reference(
    resample: Exercise,
) -> None:
    assert draws_random_cases(resample, Mode.submit)
    fresh = RandomSet(5, case_sets.random_inputs(resample, 5))
    plan = plan_grade(resample, CODE, Mode.submit, fresh=fresh)
    stored = list(resample.cases) + list(resample.extra_cases)
    assert plan.stored_cases == stored and plan.random_inputs == fresh.inputs
    assert plan.random_names == [f"random {n}" for n in range(1, len(fresh.inputs) + 1)]
    assert (plan.seed, plan.replayed_seed) == (5, None)
    assert list(plan.learner.cases) == [case.input for case in stored] + fresh.inputs
    assert plan.reference is not None and plan.reference.trusted and not plan.reference.trace
    assert list(plan.reference.cases) == fresh.inputs
    looks = [job for _, job in plan.check_first_stage]
    assert looks and all(job.driver for job in looks)
    assert plan.jobs() == [*looks, plan.learner, plan.reference]
    futures: list[Future[RunResult]] = [Future() for _ in plan.jobs()]
    running = plan.running(futures)
    assert running.learner is futures[len(looks)] and running.reference is futures[-1]
    assert [future for _, future in running.check_first_stage] == futures[: len(looks)]
    traced = plan.trace_job(fresh.inputs[:2])
    assert traced.trusted and traced.trace and list(traced.cases) == fresh.inputs[:2]


def test_a_reference_run_ahead_stands_in_for_its_job_unless_a_seed_is_replayed(
    resample: Exercise,
) -> None:
    ahead: Future[RunResult] = Future()
    fresh = RandomSet(5, case_sets.random_inputs(resample, 5), ahead)
    plan = plan_grade(resample, CODE, Mode.submit, fresh=fresh)
    assert plan.reference is None and plan.reference_ahead is ahead
    assert plan.jobs()[-1] is plan.learner
    futures: list[Future[RunResult]] = [Future() for _ in plan.jobs()]
    assert plan.running(futures).reference is ahead
    # Replayed cases come first, under names of their own, and the reference runs on all.
    replay = plan_grade(resample, CODE, Mode.submit, replay_seed=7, fresh=fresh)
    replayed = case_sets.random_inputs(resample, 7)
    assert replay.random_inputs == replayed + fresh.inputs
    count = len(replayed)
    assert replay.random_names[:count] == [
        f"replay of seed 7: random {n}" for n in range(1, count + 1)
    ]
    assert replay.random_names[count:] == plan.random_names
    assert (replay.seed, replay.replayed_seed, replay.reference_ahead) == (5, 7, None)
    assert replay.reference is not None
    assert list(replay.reference.cases) == replay.random_inputs
