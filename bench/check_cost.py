"""``python -m bench checks``: what the check over the whole function costs a Submit, per exercise.

For every exercise that declares one (``[distribution]`` or ``[sampler]``), its reference runs
the check's two stages as a Submit runs them, ``--n`` times with a unique source each time (a
comment with a counter), through one warm pool; the check's jobs' CPU (the children's) and wall
time are summed per Submit. The distribution check is also run the way the judge ran it before
the checks shared one interface (its own job builder, merge and second stage called directly),
interleaved with the new path in the same run, so the two are measured side by side. Prints
medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from app.catalog import Catalog, Exercise
from app.grading import distribution_jobs, whole_checks
from app.grading.judge import Judge
from sandbox import Job, RunResult

Stage = Callable[[str, Any], list[tuple[Any, Job]]]


def _run(judge: Judge, jobs: list[tuple[Any, Job]]) -> list[tuple[Any, RunResult]]:
    futures = judge.pool.submit_all([job for _, job in jobs])
    return [
        (batch, future.result(timeout=120))
        for (batch, _), future in zip(jobs, futures, strict=True)
    ]


def _one(judge: Judge, check: Any, code: str, direct: bool) -> tuple[float, float, int]:
    """CPU ms, wall ms and calls of the learner's function for one Submit's check."""
    started = time.perf_counter()
    if direct:  # the distribution check as the judge drove it before whole_checks
        exercise = check.exercise
        jobs = distribution_jobs.check_jobs(
            check.check, code, exercise.entry_point, exercise.helpers_code, exercise.limits
        )
        done = _run(judge, jobs)
        looked = distribution_jobs.merged_result(check.check, done)
        rest = distribution_jobs.second_stage(check.check, looked)
        if rest:
            done += _run(
                judge,
                distribution_jobs.check_jobs(
                    check.check,
                    code,
                    exercise.entry_point,
                    exercise.helpers_code,
                    exercise.limits,
                    stage=rest,
                ),
            )
    else:
        done = _run(judge, check.jobs(code))
        rest = check.second_stage(check.merged(done))
        if rest:
            done += _run(judge, check.jobs(code, rest))
    wall = (time.perf_counter() - started) * 1000
    cpu = sum(result.cpu_ms for _, result in done)
    calls = sum(chunk.trials for batch, _ in done for chunk in batch)
    return cpu, wall, calls


def measure(exercise: Exercise, judge: Judge, n: int) -> list[str]:
    check = whole_checks.of(exercise)
    if check is None:
        return []
    ways = [("", False)]
    if isinstance(check, whole_checks.DistributionRuns):
        ways = [(" (before: its own driver path)", True), (" (after: whole_checks)", False)]
    samples: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in ways}
    for i in range(n):
        for label, direct in ways:  # interleaved: the machine's drift hits both alike
            code = f"{exercise.solution_code}\n# submission {i}{label}\n"
            samples[label].append(_one(judge, check, code, direct))
    lines = []
    for label, _ in ways:
        cpu = statistics.median(s[0] for s in samples[label])
        wall = statistics.median(s[1] for s in samples[label])
        calls = statistics.median(s[2] for s in samples[label])
        kind = "distribution" if isinstance(check, whole_checks.DistributionRuns) else "sampler"
        lines.append(
            f"{exercise.id:36} {kind:12} check CPU {cpu:6.1f} ms  wall {wall:6.1f} ms  "
            f"calls {calls:5.0f}  per Submit (median of {n}){label}"
        )
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench checks", description=__doc__)
    parser.add_argument("--n", type=int, default=30, help="Submits' checks per exercise")
    args = parser.parse_args(argv)
    judge = Judge.create(workers=2, queue_size=64)
    try:
        for exercise in Catalog.load():
            for line in measure(exercise, judge, args.n):
                print(line, flush=True)
    finally:
        judge.close()
    return 0
