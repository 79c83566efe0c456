"""The judge: grade(exercise, code, mode) -> Report, as jobs of the warm sandbox pool.

The sandbox only ever sees the learner's code, the entry point and the case *inputs*; expected
outputs stay here, on the trusted side. ``grade_plan`` decides what a grade runs; this module
hands the plan's jobs (the learner's, the reference's, the check's) to the pool side by side and
awaits them by role; ``reports`` turns what they return into the report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from app.catalog import Case, Exercise
from app.errors import JudgeError, PayloadTooLarge, Saturated, code_bytes, code_over_cap
from app.grading import case_sets, custom_input, distribution_jobs, reports
from app.grading.case_sets import RandomSet
from app.grading.custom_values import BadInput
from app.grading.grade_plan import GradePlan, RunningGrade, draws_random_cases, plan_grade
from app.schemas import CaseResult, Mode, Report, Status
from sandbox import (
    Job,
    Outcome,
    Pool,
    PoolSaturated,
    RunResult,
    SandboxUnavailable,
)


class SandboxDown(JudgeError):
    status = 503
    detail = "The grading sandbox is unavailable; retry shortly."

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"Retry-After": "2"})


T = TypeVar("T")


def run_to_completion(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine from synchronous code, even where this thread already runs a loop (a
    synchronous API driving one, as a browser test's does): then on a thread of its own."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, coroutine).result()


class Judge:
    """Grades submissions through one warm sandbox pool; safe to share across threads."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.fresh_cases = case_sets.FreshCases()

    @classmethod
    def create(
        cls, workers: int | None = None, queue_size: int = 64, slow_lane: int | None = None
    ) -> Judge:
        """Start the zygote (blocking: it imports and warms numpy first) and return a judge
        using it."""
        return cls(Pool(workers=workers, queue_size=queue_size, slow_lane=slow_lane))

    def submit(
        self, exercise: Exercise, code: str, inputs: list[dict[str, Any]] | None = None
    ) -> Future[RunResult]:
        """Hand ``code`` to the sandbox, on ``inputs`` (default: the examples); raises
        PayloadTooLarge, Saturated or SandboxDown."""
        _check_size(exercise, code)
        return self._submit(exercise.job(code, inputs))

    def forget_drawn_cases(self) -> None:
        """Drop the random cases drawn ahead for the next Submits (the catalog was reloaded:
        they came from the exercises as they were)."""
        self.fresh_cases = case_sets.FreshCases()

    def _submit(self, job: Job) -> Future[RunResult]:
        return self._submit_all([job])[0]

    def _submit_all(self, jobs: list[Job]) -> list[Future[RunResult]]:
        """Jobs that belong together, admitted all or none (Saturated: none of them runs)."""
        try:
            return self.pool.submit_all(jobs)
        except PoolSaturated as exc:
            raise Saturated(f"The judge is busy ({exc}); retry shortly.", retry_after=1) from None
        except SandboxUnavailable as exc:
            raise SandboxDown(str(exc)) from None

    def _wait_budget(self, exercise: Exercise) -> float:
        # A job runs at most its wall-clock backstop (one budget for all its cases), plus the
        # kill and a fresh child after a crash; it may queue behind the fast slots' worth of
        # jobs ahead of it (long ones leave for the slow lane, where they run in parallel).
        per_job = exercise.limits.wall_ms / 1000 + 1
        return per_job * (1 + self.pool.queue_size / max(1, self.pool.workers)) + 10

    def reference(self, exercise: Exercise, inputs: list[dict[str, Any]]) -> Future[RunResult]:
        """The exercise's solution on ``inputs``, as a job of its own: its own confined child,
        never the learner's and never this process. It also runs the exercise's trace function
        there, for the feedback at a learner's first divergence."""
        return self._submit(exercise.reference_job(inputs))

    async def _result_of(self, exercise: Exercise, future: Future[RunResult]) -> RunResult:
        try:
            return await asyncio.wait_for(
                asyncio.wrap_future(future), timeout=self._wait_budget(exercise)
            )
        except SandboxUnavailable as exc:
            raise SandboxDown(str(exc)) from None
        except TimeoutError:
            raise SandboxDown("the sandbox did not answer in time") from None

    async def grade_async(
        self, exercise: Exercise, code: str, mode: Mode = Mode.run, seed: int | None = None
    ) -> Report:
        """The one grade (Run or Submit): never blocks the event loop; raises Saturated or
        SandboxDown. Submit's random cases are fresh ones, after those of ``seed`` if given."""
        started = time.perf_counter()
        _check_size(exercise, code)
        mode = Mode(mode)
        fresh = self._fresh_set(exercise) if draws_random_cases(exercise, mode) else None
        plan = plan_grade(exercise, code, mode, seed, fresh)
        running = plan.running(self._submit_all(plan.jobs()))
        checking = self._start_check(plan, running)
        try:
            result = await self._result_of(exercise, running.learner)
            cases = plan.stored_cases + await self._random_cases(plan, running)
            # The cases' rows are worked out while the check still runs (its jobs end last).
            rows = reports.case_rows(exercise, result, cases)
            if plan.random_inputs and result.setup is None:
                rows = await self._rows_with_traces(plan, result, cases, rows)
            check_result = await checking if checking is not None else None
        finally:
            if checking is not None:
                _settle(checking)
        duration_ms = (time.perf_counter() - started) * 1000
        report = reports.grade_report(
            exercise,
            result,
            rows,
            mode=mode,
            duration_ms=duration_ms,
            seed=plan.seed,
            replayed_seed=plan.replayed_seed,
            check=plan.check,
            check_result=check_result,
        )
        if plan.random_inputs:
            asyncio.get_running_loop().call_soon(self._restock, exercise)
        return report

    def _start_check(
        self, plan: GradePlan, running: RunningGrade
    ) -> asyncio.Future[RunResult] | None:
        """The check over the whole function, going on by itself (None: the grade has none):
        an item whose first look did not settle it starts the rest of its trials as soon as
        that look answers, not once the learner's job has."""
        if not running.check_first_stage:
            return None
        return asyncio.ensure_future(self._check_result(plan, running.check_first_stage))

    async def _check_result(
        self, plan: GradePlan, first_stage: list[tuple[distribution_jobs.Batch, Future[RunResult]]]
    ) -> RunResult:
        """The check's first-stage jobs waited for, then the rest of the trials of each item
        whose first look did not settle it, as one result (a case per item, in order)."""
        assert plan.check is not None
        exercise = plan.exercise
        done = [(batch, await self._result_of(exercise, future)) for batch, future in first_stage]
        looked = plan.check.merged(done)
        second_stage = plan.check_second_stage(looked)
        if not second_stage:
            return looked
        started = self._submit_all([job for _, job in second_stage])
        for (batch, _), future in zip(second_stage, started, strict=True):
            done.append((batch, await self._result_of(exercise, future)))
        return plan.check.merged(done)

    async def _random_cases(self, plan: GradePlan, running: RunningGrade) -> list[Case]:
        """The plan's random cases, expecting what the reference returned on them (none: the
        grade has no random cases)."""
        if running.reference is None:
            return []
        return plan.random_cases(await self._result_of(plan.exercise, running.reference))

    def _fresh_set(self, exercise: Exercise) -> RandomSet:
        """The next set of fresh random cases, its reference job started ahead kept only once
        it has answered every case (in the background it may be waiting for an idle core)."""
        fresh = self.fresh_cases.take_set(exercise)
        ahead = fresh.reference_ahead
        if ahead is not None and not _finished_cleanly(ahead):
            return RandomSet(fresh.seed, fresh.inputs)
        return fresh

    async def _rows_with_traces(
        self, plan: GradePlan, result: RunResult, cases: list[Case], rows: list[CaseResult]
    ) -> list[CaseResult]:
        """``rows`` again with the reference's trace on each random case the learner failed,
        for the feedback at the first divergence (``rows`` itself when none failed).

        A Submit's reference runs its random cases untraced (the trace was nearly half of that
        job's CPU), so the trace is run here, in a job of its own, only for those a learner gets
        wrong. Feedback without it is still a verdict: a busy or unavailable sandbox leaves
        the rows as they were."""
        failed = [
            index
            for index, (case, row) in enumerate(zip(cases, rows, strict=True))
            if case.group == "random"
            and row.status == Status.failed
            and case.reference_problem is None
            and "trace" not in case.expected
        ]
        if not failed:
            return rows
        exercise = plan.exercise
        inputs = [cases[index].input for index in failed]
        try:
            future = self._submit(plan.trace_job(inputs))
            traced = await self._result_of(exercise, future)
        except JudgeError:
            return rows
        names = [cases[index].name for index in failed]
        again = case_sets.expected_cases(exercise, inputs, traced, names, "random")
        with_traces = list(cases)
        for index, case in zip(failed, again, strict=True):
            if case.reference_problem is None:
                with_traces[index] = case
        return reports.case_rows(exercise, result, with_traces)

    def _restock(self, exercise: Exercise) -> None:
        """Draw the next Submits' random cases and start the reference on them, once a Submit
        is answered, in the background (idle cores only: a grade that comes meanwhile runs as
        if it were not there). The next Submit then has one job fewer to wait for; the cases
        and their expected outputs are the same whenever the reference runs."""

        def reference(inputs: list[dict[str, Any]]) -> Future[RunResult] | None:
            # Only while no grade runs or waits: under load no core would be idle for it (that
            # Submit then runs the reference beside its jobs, as it does when this one is not
            # done). Work ahead already in the slow lane does not count: it is this, too.
            lanes = self.pool.lanes()
            if lanes["fast"]["in_use"] or lanes["queue"]["in_use"]:
                return None
            try:
                job = exercise.reference_job(inputs, traced=False)
                return self.pool.submit_all([job], background=True)[0]
            except (PoolSaturated, SandboxUnavailable):
                return None

        self.fresh_cases.restock(exercise, reference)

    def grade(
        self, exercise: Exercise, code: str, mode: Mode = Mode.run, seed: int | None = None
    ) -> Report:
        """``grade_async`` for callers without an event loop (the CLI, tools, tests)."""
        return run_to_completion(self.grade_async(exercise, code, mode, seed))

    async def run_custom_async(self, exercise: Exercise, code: str, raw_input: Any) -> Report:
        """The learner's function and the reference on one input of the learner's, side by
        side; raises BadInput (422, naming the parameter) before anything runs, or after, when
        the reference shows the input to be outside what the exercise accepts."""
        started = time.perf_counter()
        custom_input.validate(exercise, raw_input)
        inputs = [custom_input.ordered(exercise, raw_input)]
        _check_size(exercise, code)
        jobs = [exercise.job(code, inputs), exercise.reference_job(inputs)]
        learner, reference = self._submit_all(jobs)
        result = await self._result_of(exercise, learner)
        expected = await self._result_of(exercise, reference)
        cases = case_sets.expected_cases(
            exercise, inputs, expected, custom_input.CUSTOM_CASE_NAME, "custom"
        )
        refusal = case_sets.input_refusal(exercise, expected)
        if refusal is not None and result.setup is None:
            # The learner's code loaded; the reference cannot answer this input: the input's
            # fault, not the learner's, so a 422 beside the input, not a runtime error.
            raise BadInput(refusal)
        duration = (time.perf_counter() - started) * 1000
        report = reports.build_report(exercise, result, duration, cases, Mode.custom)
        if cases[0].reference_problem and result.setup is None:
            report.message = f"No verdict: {cases[0].reference_problem}."
        return report

    def run_custom(self, exercise: Exercise, code: str, raw_input: Any) -> Report:
        """``run_custom_async`` for callers without an event loop."""
        return run_to_completion(self.run_custom_async(exercise, code, raw_input))

    def health(self) -> dict[str, Any]:
        """{"layers": {name: bool}, "pool": {...}} for /api/health and `judge doctor`."""
        return {"layers": self.pool.layers, "pool": self.pool.status()}

    def close(self) -> None:
        """Stops the zygote and every child; idempotent."""
        self.pool.close()


# How a case of the reference's job started ahead may end for its result to stand: a timeout or
# a crash there says more of the machine's load (it ran at the lowest priority) than of the case.
ANSWERED = frozenset(
    {Outcome.returned, Outcome.raised, Outcome.exhausted, Outcome.bad_input, Outcome.memory}
)


def _finished_cleanly(future: Future[RunResult]) -> bool:
    """Whether a reference job started ahead has answered, so that its result stands."""
    if not future.done() or future.cancelled() or future.exception() is not None:
        return False
    result = future.result()
    return result.setup is None and all(case.outcome in ANSWERED for case in result.cases)


def _settle(task: asyncio.Future[Any]) -> None:
    """A task this grade no longer waits for (it failed first): cancelled if still running,
    its exception taken if it ended with one (asyncio warns of an exception nobody read)."""
    if not task.done():
        task.cancel()
    elif not task.cancelled():
        task.exception()


def _check_size(exercise: Exercise, code: str) -> None:
    """The one code-size check of every grade (413 past the exercise's cap)."""
    if not isinstance(code, str):
        raise TypeError("code must be a string")
    size = code_bytes(code)
    if size > exercise.limits.code_bytes:
        raise PayloadTooLarge(code_over_cap(size, exercise.limits.code_bytes))
