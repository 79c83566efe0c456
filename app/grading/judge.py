"""The judge: grade(exercise, code, mode) -> Report, as jobs of the warm sandbox pool.

The sandbox only ever sees the learner's code, the entry point and the case *inputs*; expected
outputs stay here, on the trusted side. This module runs the jobs (the learner's, the
reference's, the distribution check's) side by side; ``reports`` turns what they return into
the report.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from app.catalog import Case, Exercise
from app.errors import JudgeError, PayloadTooLarge, Saturated, code_bytes, code_over_cap
from app.grading import case_sets, custom_input, distribution_jobs, whole_checks
from app.grading.reports import build_report, limits_text, with_check_rows
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

    async def _outcome(self, exercise: Exercise, future: Future[RunResult]) -> RunResult:
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
        SandboxDown. Submit's random cases use ``seed`` (a fresh one when None)."""
        started = time.perf_counter()
        mode = Mode(mode)
        submit = mode is Mode.submit
        cases = case_sets.stored_cases(exercise, submit)
        drawn: list[dict[str, Any]] = []
        names: list[str] = []
        replayed, seed = (seed, None) if submit and exercise.random_cases else (None, None)
        ahead: Future[RunResult] | None = None  # the reference's job on the cases, if started
        if submit and exercise.random_cases:
            # A seed the client chose replays those cases, and fresh ones are drawn beside them
            # every time: a table of answers learnt from one report never passes a Submit.
            stocked = self.fresh_cases.take_set(exercise)
            seed, fresh, ahead = stocked.seed, stocked.inputs, stocked.expected
            if replayed is not None:
                replay = case_sets.random_inputs(exercise, replayed)
                drawn += replay
                names += [
                    f"replay of seed {replayed}: random {n}" for n in range(1, len(replay) + 1)
                ]
            drawn += fresh
            names += [f"random {n}" for n in range(1, len(fresh) + 1)]
        inputs = [case.input for case in cases] + drawn
        _check_size(exercise, code)
        # Admitted together, all or none, so the reference and the distribution check run
        # beside the learner's job, not after it, and a 503 leaves none of them running.
        if replayed is not None or (ahead is not None and not _finished_cleanly(ahead)):
            # Replayed cases need a run of their own; one started ahead is used only once it
            # has answered every case (in the background it may be waiting for an idle core).
            ahead = None
        jobs = [exercise.job(code, inputs)]
        if drawn and ahead is None:
            jobs.append(exercise.reference_job(drawn, traced=False))
        check = whole_checks.of(exercise) if submit else None
        looks = check.jobs(code) if check is not None else []
        # Longest first: the check's jobs (hundreds of steps each) take the fast slots, and
        # the learner's and the reference's shorter jobs fill in beside them, so the cores
        # finish together (the check last, alone on one core, was the Submit's tail).
        futures = self._submit_all([job for _, job in looks] + jobs)
        learner = futures[len(looks)]
        reference = ahead if ahead is not None else futures[-1] if drawn else None
        # The check goes on by itself: a pair whose first look did not settle it starts the
        # rest of its trials as soon as that look answers, not once the learner's job has.
        handed = [(batch, future) for (batch, _), future in zip(looks, futures, strict=False)]
        checking = (
            asyncio.ensure_future(self._checked(exercise, check, code, handed))
            if check is not None and looks
            else None
        )
        try:
            result = await self._outcome(exercise, learner)
            if reference is not None:
                expected = await self._outcome(exercise, reference)
                cases += case_sets.expected_cases(exercise, drawn, expected, names, "random")
            # The exact cases' report is built while the check still runs (its job usually
            # ends last), so the learner does not wait for it.
            report = build_report(exercise, result, 0.0, cases, mode, seed)
            if drawn and result.setup is None:
                traced = await self._traced(exercise, cases, report)
                if traced is not cases:
                    cases = traced
                    report = build_report(exercise, result, 0.0, cases, mode, seed)
            checked = await checking if checking is not None else None
        finally:
            if checking is not None:
                _settle(checking)
        duration = round((time.perf_counter() - started) * 1000, 3)
        update: dict[str, Any] = {"duration_ms": duration}
        if replayed is not None:
            update["replayed_seed"] = replayed
        report = report.model_copy(update=update)
        if checked is not None and check is not None:
            rows = check.rows(
                checked, limits_text(exercise), exact_failed=report.status != Status.passed
            )
            report = with_check_rows(report, rows, checked)
        if drawn:
            # The next Submit's cases and the reference's job on them, started once this one is
            # answered, in the background (idle cores only: a grade that comes meanwhile runs
            # as if it were not there). The next Submit then has one job fewer to wait for; the
            # cases and their expected outputs are the same whenever the reference runs.
            asyncio.get_running_loop().call_soon(self._restock, exercise)
        return report

    async def _traced(self, exercise: Exercise, cases: list[Case], report: Report) -> list[Case]:
        """``cases`` with the reference's trace on each random case the learner failed, for the
        feedback at the first divergence (``cases`` itself when none failed).

        A Submit's reference runs its random cases untraced (the trace was nearly half of that
        job's CPU), so the trace is run here, in a job of its own, only for those a learner gets
        wrong. Feedback without it is still a verdict: a busy or unavailable sandbox leaves
        the cases as they were."""
        failed = [
            index
            for index, (case, test) in enumerate(zip(cases, report.tests, strict=False))
            if case.group == "random"
            and test.status == Status.failed
            and case.reference_problem is None
            and "trace" not in case.expected
        ]
        if not failed:
            return cases
        inputs = [cases[index].input for index in failed]
        try:
            future = self._submit(exercise.reference_job(inputs, traced=True))
            result = await self._outcome(exercise, future)
        except JudgeError:
            return cases
        names = [cases[index].name for index in failed]
        again = case_sets.expected_cases(exercise, inputs, result, names, "random")
        traced = list(cases)
        for index, case in zip(failed, again, strict=True):
            if case.reference_problem is None:
                traced[index] = case
        return traced

    def _restock(self, exercise: Exercise) -> None:
        """Draw the next Submits' random cases and start the reference on them."""

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
        side; raises BadInput (422, naming the parameter) before anything runs."""
        started = time.perf_counter()
        notes = custom_input.validate(exercise, raw_input)
        inputs = [custom_input.ordered(exercise, raw_input)]
        _check_size(exercise, code)
        jobs = [exercise.job(code, inputs), exercise.reference_job(inputs)]
        learner, reference = self._submit_all(jobs)
        result = await self._outcome(exercise, learner)
        expected = await self._outcome(exercise, reference)
        cases = case_sets.expected_cases(exercise, inputs, expected, "your input", "custom")
        duration = (time.perf_counter() - started) * 1000
        report = build_report(exercise, result, duration, cases, Mode.custom)
        if cases[0].reference_problem and result.setup is None:
            report.message = f"No verdict: {cases[0].reference_problem}."
        if notes and report.tests:
            test = report.tests[0]
            extra = "; ".join(notes) + " (the exercise assumes distributions)"
            test.message = f"{test.message}; {extra}" if test.message else extra
        return report

    def run_custom(self, exercise: Exercise, code: str, raw_input: Any) -> Report:
        """``run_custom_async`` for callers without an event loop."""
        return run_to_completion(self.run_custom_async(exercise, code, raw_input))

    async def _checked(
        self,
        exercise: Exercise,
        check: whole_checks.WholeCheck,
        code: str,
        futures: list[tuple[distribution_jobs.Batch, Future[RunResult]]],
    ) -> RunResult:
        """The check's first-stage jobs waited for, then the rest of the trials of each item
        whose first look did not settle it, as one result (a case per item, in order)."""
        done = [(batch, await self._outcome(exercise, future)) for batch, future in futures]
        looked = check.merged(done)
        rest = check.second_stage(looked)
        if not rest:
            return looked
        more = check.jobs(code, rest)
        started = self._submit_all([job for _, job in more])
        for (batch, _), future in zip(more, started, strict=True):
            done.append((batch, await self._outcome(exercise, future)))
        return check.merged(done)

    async def check_rows_async(
        self, exercise: Exercise, code: str, exact_failed: bool
    ) -> list[CaseResult]:
        """The rows of the exercise's check over the whole function alone (none: no rows).

        The learner's code and the trusted driver run in confined children; the counts come
        back here for the statistics."""
        check = whole_checks.of(exercise)
        if check is None:
            return []
        looks = check.jobs(code)
        futures = self._submit_all([job for _, job in looks])
        handed = list(zip([batch for batch, _ in looks], futures, strict=True))
        result = await self._checked(exercise, check, code, handed)
        return check.rows(result, limits_text(exercise), exact_failed)

    def check_rows(self, exercise: Exercise, code: str, exact_failed: bool) -> list[CaseResult]:
        """``check_rows_async`` for callers without an event loop."""
        return run_to_completion(self.check_rows_async(exercise, code, exact_failed))

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
