"""``python -m bench submit``: Run against Submit at light load, per exercise, with a breakdown.

One client, a short think time, a unique source per submission, Run and Submit interleaved,
through an in-process judge whose grades run on one long-lived event loop (as the server's do).
Each Submit's jobs are recorded on their way to the pool (learner, reference, distribution
check): when each was handed over and answered, its CPU and whether the zygote demoted it.
What is left of a Submit's time is the host's: drawing the random cases and building the jobs
before the first hand-over, building the report after the last answer. The reference's job on a
Submit's random cases starts in the background once the previous Submit is answered: it is
shown apart ("ahead"), and its CPU counts in the Submit that uses it. The learner's code is the
exercise's reference, or with ``--golden`` its golden correct submissions in turn (what learners
write: no input checks for "Try your own input"). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.catalog import EXERCISES_DIR, Catalog, Exercise
from app.grading.exercise_tools import golden_files
from app.grading.judge import Judge, run_to_completion
from app.schemas import Mode, Status
from bench.sandbox_step import LIGHT_LOAD_THINK_MS, unique_sources
from bench.stats import percentile
from sandbox import Job, Pool, RunResult

DEFAULT_EXERCISES = ("speculative-decoding-verify", "speculative-decoding-resample")


@dataclass
class JobTiming:
    """One job of a grade, as the pool saw it (times in ms from the grade's start)."""

    kind: str
    cases: int
    submitted_ms: float
    answered_ms: float | None = None
    wall_ms: float = 0.0
    cpu_ms: float = 0.0
    demoted: bool = False


@dataclass
class GradeTiming:
    started: float = field(default_factory=time.perf_counter)
    jobs: list[JobTiming] = field(default_factory=list)
    # Jobs handed over for this grade before it began (the reference on its random cases,
    # started in the background once the previous Submit was answered): their CPU is this
    # grade's; times from their own hand-over, and ``answered_ms`` says whether they were done
    # before this grade began.
    ahead: list[JobTiming] = field(default_factory=list)

    def since(self) -> float:
        return (time.perf_counter() - self.started) * 1000


def job_kind(job: Job, exercise: Exercise) -> str:
    """learner, reference or check: which part of a grade a job is."""
    if job.driver:
        return "check"
    if job.code == exercise.solution_code:
        return "reference"
    return "learner"


class RecordingPool:
    """The judge's pool, with every job's hand-over and answer noted for the current grade."""

    def __init__(self, pool: Pool) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self.current: GradeTiming | None = None
        self.exercise: Exercise | None = None
        self.between = GradeTiming()  # jobs handed over while no grade runs, for the next one

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)

    def submit(self, job: Job) -> Future[RunResult]:
        return self.submit_all([job])[0]

    def submit_all(self, jobs: list[Job], background: bool = False) -> list[Future[RunResult]]:
        grade, exercise = self.current, self.exercise
        futures = self._pool.submit_all(jobs, background)
        if exercise is None:
            return futures
        # Work done ahead (the reference on the next Submit's cases): that Submit's.
        if grade is None or background:
            grade = self.between
        for job, future in zip(jobs, futures, strict=True):
            self._note(grade, exercise, job, future)
        return futures

    def _note(
        self, grade: GradeTiming, exercise: Exercise, job: Job, future: Future[RunResult]
    ) -> None:
        timing = JobTiming(job_kind(job, exercise), len(job.cases), grade.since())
        with self._lock:
            grade.jobs.append(timing)

        def answered(done: Future[RunResult]) -> None:
            timing.answered_ms = grade.since()
            if done.exception() is None:
                result = done.result()
                timing.wall_ms, timing.cpu_ms = result.wall_ms, result.cpu_ms
                timing.demoted = result.demoted

        future.add_done_callback(answered)


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(percentile(values, 0.5), 2),
        "p90": round(percentile(values, 0.9), 2),
    }


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2) if values else 0.0


def _breakdown(grades: list[tuple[float, GradeTiming]]) -> dict[str, Any]:
    """Medians over the Submits of each part of one: per job kind, and the host's share."""
    parts: dict[str, Any] = {}
    for kind in ("learner", "reference", "check"):
        walls, cpus, answers, demoted, jobs, cases = [], [], [], 0, 0, 0
        for _, grade in grades:
            mine = [job for job in grade.jobs if job.kind == kind]
            if not mine:
                continue
            jobs, cases = len(mine), sum(job.cases for job in mine)
            walls.append(max(job.wall_ms for job in mine))
            cpus.append(sum(job.cpu_ms for job in mine))
            answers.append(max(job.answered_ms or 0.0 for job in mine))
            demoted += sum(job.demoted for job in mine)
        if walls:
            parts[kind] = {
                "jobs": jobs,
                "cases": cases,
                "wall_ms": _median(walls),  # the longest of its jobs, from hand-over to answer
                "cpu_ms": _median(cpus),  # all its jobs together, in their children
                "answered_at_ms": _median(answers),
                "demoted_per_grade": round(demoted / len(grades), 2),
            }
    ahead = [job for _, grade in grades for job in grade.ahead]
    if ahead:
        parts["ahead"] = {
            "jobs_per_grade": round(len(ahead) / len(grades), 2),
            "cases": _median([job.cases for job in ahead]),
            "cpu_ms": _median([job.cpu_ms for job in ahead]),
            "wall_ms": _median([job.wall_ms for job in ahead]),
            # done before the Submit that uses it began (answered at or before its start)
            "ready_share": round(
                sum(job.answered_ms is not None and job.answered_ms <= 0 for job in ahead)
                / len(ahead),
                2,
            ),
        }
    before = [min(job.submitted_ms for job in g.jobs) for _, g in grades if g.jobs]
    submitted = [max(job.submitted_ms for job in g.jobs) for _, g in grades if g.jobs]
    after = [
        total - max(job.answered_ms or total for job in g.jobs) for total, g in grades if g.jobs
    ]
    parts["host"] = {
        "before_first_job_ms": _median(before),  # random cases drawn, jobs built
        "all_jobs_handed_over_ms": _median(submitted),
        "after_last_answer_ms": _median(after),  # the report built from what came back
    }
    return parts


def _children_cpu(grades: list[tuple[float, GradeTiming]]) -> float:
    return _median([sum(job.cpu_ms for job in grade.jobs + grade.ahead) for _, grade in grades])


async def _grade(
    judge: Judge, recording: RecordingPool, exercise: Exercise, code: str, mode: Mode
) -> tuple[float, GradeTiming, bool]:
    timing = GradeTiming()
    if mode is Mode.submit:  # what a Submit started for the next one is that one's work
        between, recording.between = recording.between, GradeTiming()
        timing.ahead = between.jobs
        for job in between.jobs:  # from this grade's start: <= 0 means done before it began
            shift = (timing.started - between.started) * 1000
            job.answered_ms = None if job.answered_ms is None else job.answered_ms - shift
    recording.current, recording.exercise = timing, exercise
    try:
        report = await judge.grade_async(exercise, code, mode)
    finally:
        recording.current = None
    return timing.since(), timing, report.status == Status.passed


def learner_sources(exercise: Exercise, golden: bool) -> tuple[Callable[[], str], str]:
    """A unique source per call: the reference, or each golden correct submission in turn;
    and which of the two it is, in words."""
    files = golden_files(exercise, "correct") if golden else []
    if not files:
        return unique_sources(exercise.solution_code), "the reference"
    turns = itertools.cycle([unique_sources(path.read_text(encoding="utf-8")) for path in files])
    return (lambda: next(turns)()), "golden correct submissions"


async def _measure_exercise(
    judge: Judge,
    recording: RecordingPool,
    exercise: Exercise,
    repeats: int,
    think_ms: float,
    golden: bool,
) -> dict[str, Any]:
    source, learner_code = learner_sources(exercise, golden)
    runs: list[tuple[float, GradeTiming]] = []
    submits: list[tuple[float, GradeTiming]] = []
    failures = 0
    for round_ in range(repeats + 3):  # three rounds of warm-up, not counted
        for mode in (Mode.run, Mode.submit):
            total, timing, passed = await _grade(judge, recording, exercise, source(), mode)
            failures += not passed
            if round_ >= 3:
                (runs if mode is Mode.run else submits).append((total, timing))
            await asyncio.sleep(think_ms / 1000)
    run, submit = _ms([total for total, _ in runs]), _ms([total for total, _ in submits])
    run_cpu, submit_cpu = _children_cpu(runs), _children_cpu(submits)
    return {
        "exercise": exercise.id,
        "learner_code": learner_code,
        "repeats": repeats,
        "run_ms": run,
        "submit_ms": submit,
        "ratio_p50": round(submit["p50"] / run["p50"], 2),
        # What the children spent per grade, all jobs together: less sensitive than latency
        # to what else the machine runs, and what a quiet machine's cores must get through.
        "children_cpu_ms": {"run": run_cpu, "submit": submit_cpu},
        "breakdown": _breakdown(submits),
        "failures": failures,
    }


def run_submit_bench(
    root: Path,
    exercise_ids: list[str],
    repeats: int,
    think_ms: float,
    workers: int,
    golden: bool = False,
) -> dict[str, Any]:
    """Interleaved Run and Submit of each exercise's reference (or golden correct submissions),
    unique sources, one client."""
    catalog = Catalog.load(root)
    judge = Judge.create(workers=workers)
    recording = RecordingPool(judge.pool)
    judge.pool = recording  # type: ignore[assignment]  # the same pool, its jobs noted
    rows = []
    try:
        for exercise_id in exercise_ids:
            exercise = catalog.get(exercise_id)
            if exercise is None:
                raise SystemExit(f"bench submit: no exercise {exercise_id!r}")
            measured = _measure_exercise(judge, recording, exercise, repeats, think_ms, golden)
            rows.append(run_to_completion(measured))  # a loop of its own, even inside one
        layers = judge.health()["layers"]
    finally:
        judge.close()
    return {"workers": workers, "think_ms": think_ms, "layers": layers, "exercises": rows}


def _print(summary: dict[str, Any]) -> None:
    off = [name for name, on in summary["layers"].items() if not on]
    print(
        f"bench submit: one client, {summary['think_ms']:.0f} ms think time, unique sources, "
        f"Run and Submit interleaved, {summary['workers']} fast slots"
        + (f"; layers OFF: {', '.join(off)}" if off else "; every layer on")
    )
    for row in summary["exercises"]:
        run, submit = row["run_ms"], row["submit_ms"]
        print(
            f"\n{row['exercise']} ({row['repeats']} of each, learner code: {row['learner_code']}): "
            f"Run p50 {run['p50']:.1f} ms, p90 "
            f"{run['p90']:.1f}; Submit p50 {submit['p50']:.1f} ms, p90 {submit['p90']:.1f}; "
            f"Submit/Run p50 {row['ratio_p50']:.2f}x"
            + (f"  ({row['failures']} grades NOT accepted)" if row["failures"] else "")
        )
        cpu = row["children_cpu_ms"]
        print(
            f"  children's CPU per grade: Run {cpu['run']:.1f} ms, Submit {cpu['submit']:.1f} ms "
            f"({cpu['submit'] / max(cpu['run'], 1e-9):.1f}x)"
        )
        parts = row["breakdown"]
        print(
            f"  {'Submit part':<11}{'jobs':>5}{'cases':>7}{'wall ms':>9}{'CPU ms':>8}"
            f"{'done at':>9}{'demoted':>9}"
        )
        for kind in ("learner", "reference", "check"):
            if kind in parts:
                p = parts[kind]
                print(
                    f"  {kind:<11}{p['jobs']:>5}{p['cases']:>7}{p['wall_ms']:>9.1f}"
                    f"{p['cpu_ms']:>8.1f}{p['answered_at_ms']:>9.1f}{p['demoted_per_grade']:>9}"
                )
        if "ahead" in parts:
            a = parts["ahead"]
            print(
                f"  ahead: {a['jobs_per_grade']} job per Submit started by the previous one "
                f"(the reference on its random cases): {a['cpu_ms']:.1f} ms CPU, "
                f"{a['wall_ms']:.1f} wall, done before the Submit began {a['ready_share']:.0%} "
                "of the time (its CPU is in the Submit's)"
            )
        host = parts["host"]
        print(
            f"  host: {host['before_first_job_ms']:.1f} ms before the first job (random cases, "
            f"jobs built), all handed over at {host['all_jobs_handed_over_ms']:.1f} ms, "
            f"{host['after_last_answer_ms']:.1f} ms after the last answer (the report)"
        )
    print("\n(medians over the Submits; wall: the longest job of the kind, hand-over to answer)")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench submit", description=__doc__)
    parser.add_argument("--exercise", action="append", help="an exercise id (repeatable)")
    parser.add_argument("--repeats", type=int, default=40, help="grades of each mode")
    parser.add_argument("--think-ms", type=float, default=LIGHT_LOAD_THINK_MS)
    parser.add_argument("--workers", type=int, default=None, help="fast slots (default: cores)")
    parser.add_argument("--exercises-dir", type=Path, default=EXERCISES_DIR)
    parser.add_argument(
        "--golden", action="store_true", help="the golden correct submissions as learner code"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be positive")
    workers = args.workers or os.cpu_count() or 1
    summary = run_submit_bench(
        args.exercises_dir,
        args.exercise or list(DEFAULT_EXERCISES),
        args.repeats,
        args.think_ms,
        workers,
        args.golden,
    )
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        _print(summary)
    return 1 if any(row["failures"] for row in summary["exercises"]) else 0
