"""``python -m bench child``: what one confined child costs per job, by the job's size.

Jobs of the resample exercise through the real pool (every layer on), a unique source each, one
at a time with a pause between them so that a rehearsed spare is always waiting: the reference
as a learner's job on one example, on the six examples, on a Submit's 34 cases (examples, extra,
random), and a distribution-check job of one trial. Prints the median child CPU (read by the
zygote from the child's CPU clock, from its assignment to its end) and wall time (the host's,
hand-over to answer) of each kind. ``--pair``: a Submit's two jobs on resample (the check's
first stage, the learner's 34 cases), each alone and then together as a Submit hands them over.
Imports only ``app`` and ``sandbox``: run from another checkout's folder (``cd <checkout> &&
python -m bench child``, whose current folder comes first on the import path) it measures that
checkout (A/B runs in one session). Asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import statistics
import sys
import time
from typing import Any

from app.catalog import EXERCISES_DIR, Catalog, Exercise
from app.grading import case_sets, distribution_jobs
from sandbox import Job, Pool, RunResult

EXERCISE = "speculative-decoding-resample"
PAUSE_S = 0.03  # between jobs: the zygote forks and the spare rehearses meanwhile


def submit_inputs(exercise: Exercise) -> list[dict[str, Any]]:
    """A Submit's case inputs: the examples, the extra cases and one seed's random cases."""
    inputs = [case.input for case in case_sets.stored_cases(exercise, True)]
    return inputs + case_sets.random_inputs(exercise, 12345)


def answered(result: RunResult) -> RunResult:
    """The result of a job that loaded and returned on every case (a bench of failed jobs
    would time something else)."""
    assert result.setup is None, result.setup
    assert all(case.outcome.value == "returned" for case in result.cases), result
    return result


def medians(samples: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
    """Each kind's median child CPU and wall time, from its (cpu_ms, wall_ms) samples."""
    return {
        kind: {
            "cpu_ms": round(statistics.median(cpu for cpu, _ in rows), 2),
            "wall_ms": round(statistics.median(wall for _, wall in rows), 2),
        }
        for kind, rows in samples.items()
    }


def kinds_of_job() -> dict[str, Any]:
    """Each kind's job maker: a function of a unique source."""
    exercise = Catalog.load(EXERCISES_DIR).get(EXERCISE)
    assert exercise is not None and exercise.distribution is not None
    examples = [case.input for case in exercise.cases]
    submit = submit_inputs(exercise)
    one_trial = distribution_jobs.check_jobs(
        exercise.distribution,
        exercise.solution_code,
        exercise.entry_point,
        exercise.helpers_code,
        exercise.limits,
    )[0][1]
    trial_case = {**one_trial.cases[0], "trials": 1}
    return {
        "1 case": lambda code: exercise.job(code, examples[:1]),
        f"{len(examples)} cases": lambda code: exercise.job(code, examples),
        f"{len(submit)} cases": lambda code: exercise.job(code, submit),
        "1 trial": lambda code: dataclasses.replace(one_trial, code=code, cases=(trial_case,)),
    }


def measure(repeats: int) -> dict[str, dict[str, float]]:
    exercise = Catalog.load(EXERCISES_DIR).get(EXERCISE)
    assert exercise is not None
    makers = kinds_of_job()
    serial = itertools.count()
    samples: dict[str, list[tuple[float, float]]] = {kind: [] for kind in makers}
    with Pool(workers=2) as pool:
        for round_ in range(repeats + 1):
            for kind, make in makers.items():
                source = f"{exercise.solution_code}\n# job {next(serial)}\n"
                job: Job = make(source)
                time.sleep(PAUSE_S)
                result = answered(pool.run(job, timeout=30))
                if round_:  # the first round warms the pool's spares and caches
                    samples[kind].append((result.cpu_ms, result.wall_ms))
    return medians(samples)


def measure_pair(repeats: int) -> dict[str, dict[str, float]]:
    """A Submit's two jobs (the check's first stage and the learner's 34 cases), each alone and
    then handed over together as a Submit hands them: what running side by side costs them."""
    exercise = Catalog.load(EXERCISES_DIR).get(EXERCISE)
    assert exercise is not None and exercise.distribution is not None
    check = exercise.distribution
    submit = submit_inputs(exercise)
    serial = itertools.count()

    def jobs() -> tuple[Job, Job]:
        code = f"{exercise.solution_code}\n# job {next(serial)}\n"
        (_, looks), *_ = distribution_jobs.check_jobs(
            check, code, exercise.entry_point, exercise.helpers_code, exercise.limits
        )
        return looks, exercise.job(code, submit)

    samples: dict[str, list[tuple[float, float]]] = {
        kind: [] for kind in ("check alone", "cases alone", "check beside", "cases beside")
    }
    both: list[float] = []
    with Pool(workers=2) as pool:
        for round_ in range(repeats + 1):
            looks, cases = jobs()
            for kind, job in (("check alone", looks), ("cases alone", cases)):
                time.sleep(PAUSE_S)
                result = answered(pool.run(job, timeout=30))
                if round_:
                    samples[kind].append((result.cpu_ms, result.wall_ms))
            time.sleep(PAUSE_S)
            started = time.perf_counter()
            together = pool.submit_all(list(jobs()))
            results = [future.result(timeout=30) for future in together]
            elapsed = (time.perf_counter() - started) * 1000
            for result in results:
                answered(result)
            if round_:
                both.append(elapsed)
                for kind, result in zip(("check beside", "cases beside"), results, strict=True):
                    samples[kind].append((result.cpu_ms, result.wall_ms))
    figures = medians(samples)
    figures["both answered"] = {"cpu_ms": 0.0, "wall_ms": round(statistics.median(both), 2)}
    return figures


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench child", description=__doc__)
    parser.add_argument("--repeats", type=int, default=25, help="jobs of each kind (default 25)")
    parser.add_argument(
        "--pair", action="store_true", help="a Submit's check and cases jobs, alone and together"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    options = parser.parse_args(argv)
    figures = (measure_pair if options.pair else measure)(options.repeats)
    if options.json:
        print(json.dumps(figures))
    else:
        for kind, row in figures.items():
            print(f"{kind:>13}: child CPU {row['cpu_ms']:6.2f} ms, wall {row['wall_ms']:6.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
