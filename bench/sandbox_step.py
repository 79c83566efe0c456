"""`judge bench`: the warm pool against a fresh interpreter per submission, side by side.

Both paths grade the same correct solution with the same confinement, harness and checks; the
only difference is where the child comes from (a fork of the warm zygote, or a cold
``python -s -P`` that imports numpy and RestrictedPython itself). Prints numbers; asserts nothing.

Every submission sends its own source by default (a comment with a counter), as learners do:
a cache that helps only an identical source flatters nothing real. ``same_source`` sends one
source again and again instead, and the rows say so. The CPU each warm grade cost (this
process, the zygote and its children) is printed beside the machine's fork floor.
"""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.catalog import Catalog, Exercise
from app.grading.judge import Judge
from app.grading.reports import build_report
from app.schemas import Report, Status
from bench.cpu import tree_cpu_seconds
from bench.stats import percentile
from sandbox import framing, protocol
from sandbox.results import RunResult, SetupFailure
from sandbox.zygote_process import INTERPRETER_FLAGS, PROJECT_ROOT
from sandbox.zygote_process import environment as zygote_environment

# A learner reads a result before running again; 20 ms is far shorter than that, and enough
# for the pool to have a confined child ready.
LIGHT_LOAD_THINK_MS = 20.0
FRESH_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); from bench.fresh_child import main; main()"
)


def _measure(
    grade: Callable[[], Report], n: int, concurrency: int, think_ms: float = 0.0
) -> dict[str, Any]:
    """Run n grades with `concurrency` in flight; latency per grade and overall throughput.

    ``think_ms`` pauses each client between grades, as a learner reading results does: the
    pool then has the quiet moments it uses to prepare children, unlike back-to-back grades.
    """
    latencies: list[float] = []
    failures = 0

    def one(_: int) -> None:
        nonlocal failures
        started = time.perf_counter()
        report = grade()
        latencies.append((time.perf_counter() - started) * 1000)
        if report.status != Status.passed:
            failures += 1
        if think_ms:
            time.sleep(think_ms / 1000)

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as executor:
        list(executor.map(one, range(n)))
    elapsed = time.perf_counter() - started
    return {
        "grades": n,
        "concurrency": concurrency,
        "think_ms": think_ms,
        "seconds": round(elapsed, 3),
        "grades_per_s": round(n / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.50), 2),
        "p99_ms": round(percentile(latencies, 0.99), 2),
        "mean_ms": round(statistics.fmean(latencies), 2),
        "failures": failures,
    }


def pool_grade(judge: Judge, exercise: Exercise, code: str) -> Report:
    """The sandbox step alone: the warm pool's run and the report, waited for on this thread
    (no event loop in the way, as a web request has)."""
    started = time.perf_counter()
    result = judge.submit(exercise, code).result(timeout=120)
    return build_report(exercise, result, (time.perf_counter() - started) * 1000)


def fresh_grade(exercise: Exercise, code: str) -> Report:
    """Grade once in a brand-new interpreter (the baseline)."""
    started = time.perf_counter()
    job = exercise.job(code).document()
    completed = subprocess.run(
        [sys.executable, *INTERPRETER_FLAGS, "-c", FRESH_BOOTSTRAP, PROJECT_ROOT],
        input=framing.encode(job),
        capture_output=True,
        env=zygote_environment(),
        timeout=60,
        check=False,
    )
    result = RunResult()
    for raw in framing.FrameReader().feed(completed.stdout):
        message = protocol.parse_reply(raw, exercise.limits.output_bytes)
        if isinstance(message, protocol.CaseReport):
            result.cases.append(message.run)
        elif isinstance(message, SetupFailure):
            result.setup = message
    return build_report(exercise, result, (time.perf_counter() - started) * 1000)


FLOOR_BOOTSTRAP = (
    "import sys; sys.path.insert(0, sys.argv[1]); from bench.floor import main; main()"
)


def fork_floor(exercise: Exercise, grades: int) -> dict[str, Any]:
    """This machine's floor: a fork of a warm interpreter running the trusted reference
    solution on the cases, unconfined and unchecked (see bench/floor.py)."""
    job = {**exercise.job(exercise.solution_code).document(), "grades": grades}
    completed = subprocess.run(
        [sys.executable, *INTERPRETER_FLAGS, "-c", FLOOR_BOOTSTRAP, PROJECT_ROOT],
        input=framing.encode(job),
        capture_output=True,
        env=zygote_environment(),
        timeout=300,
        check=False,
    )
    try:
        return dict(json.loads(completed.stdout.decode().strip().splitlines()[-1]))
    except (ValueError, IndexError):
        return {"error": completed.stderr.decode(errors="replace")[-300:]}


def unique_sources(code: str) -> Callable[[], str]:
    """Each call a new source: the code and a comment with a counter (thread-safe)."""
    serial = itertools.count()
    return lambda: f"{code}\n# submission {next(serial)}\n"


def _with_cpu(row: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one phase and add the CPU per grade it cost: this process (the host side and the
    benchmark's threads), the zygote and every child it reaped."""
    own_before, tree_before = tree_cpu_seconds(os.getpid())
    result = row()
    own_after, tree_after = tree_cpu_seconds(os.getpid())
    spent = (own_after - own_before) + (tree_after - tree_before)
    result["cpu_ms_per_grade"] = round(spent * 1000 / result["grades"], 2)
    return result


def run_bench(
    root: Path,
    *,
    n: int,
    concurrency: int,
    as_json: bool,
    fresh_n: int | None = None,
    exercise_id: str = "speculative-decoding-verify",
    same_source: bool = False,
) -> int:
    if n < 1 or concurrency < 1:
        print("judge bench: --n and --concurrency must be positive")
        return 2
    catalog = Catalog.load(root)
    exercise = catalog.get(exercise_id) or next(iter(catalog))
    code = exercise.solution_code
    fresh_n = fresh_n or max(10, n // 8)

    source = (lambda: code) if same_source else unique_sources(code)

    def grade() -> Report:
        return pool_grade(judge, exercise, source())

    judge = Judge.create(workers=concurrency, queue_size=max(4, concurrency * 2))
    try:
        for _ in range(20):  # warm the path (first forks, page cache)
            grade()
        warm_latency = _with_cpu(lambda: _measure(grade, min(n, 300), 1))
        warm_light = _measure(grade, min(n, 100), 1, think_ms=LIGHT_LOAD_THINK_MS)
        warm = _with_cpu(lambda: _measure(grade, n, concurrency))
        # The row every figure is quoted from: unique sources, as learners send them.
        fresh_source = unique_sources(code)
        warm_unique = (
            _with_cpu(
                lambda: _measure(
                    lambda: pool_grade(judge, exercise, fresh_source()), n, concurrency
                )
            )
            if same_source
            else warm
        )
        layers = judge.health()["layers"]
    finally:
        judge.close()
    fresh_latency = _measure(lambda: fresh_grade(exercise, code), max(5, fresh_n // 2), 1)
    fresh = _measure(lambda: fresh_grade(exercise, code), fresh_n, concurrency)
    floor = fork_floor(exercise, min(n, 300))

    summary = {
        "exercise": exercise.id,
        "cpus": os.cpu_count(),
        "source": "identical" if same_source else "unique",
        "layers": layers,
        "warm": {
            "latency": warm_latency,
            "throughput": warm,
            "light_load": warm_light,
            "unique_sources": warm_unique,
        },
        "fresh": {"latency": fresh_latency, "throughput": fresh},
        "fork_floor": floor,
        "throughput_ratio": round(warm["grades_per_s"] / fresh["grades_per_s"], 1),
        "p50_ratio": round(fresh_latency["p50_ms"] / warm_latency["p50_ms"], 1),
    }
    floor_cpu = floor.get("cpu_ms")
    summary["cpu_vs_floor"] = (
        round(warm_unique["cpu_ms_per_grade"] / floor_cpu, 1) if floor_cpu else None
    )
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        _print_summary(summary)
    failures = sum(row["failures"] for row in (warm, fresh, warm_latency, warm_light, warm_unique))
    return 1 if failures else 0


def _print_summary(summary: dict[str, Any]) -> None:
    on = [name for name, active in summary["layers"].items() if active]
    off = [name for name, active in summary["layers"].items() if not active]
    source = summary["source"]
    print(
        f"judge bench: {summary['exercise']}, six cases per grade, {summary['cpus']} CPUs, "
        + (
            "each submission its own source"
            if source == "unique"
            else "ONE IDENTICAL SOURCE for every warm-pool row but the unique one"
        )
    )
    print(f"layers on: {', '.join(on)}" + (f"; OFF: {', '.join(off)}" if off else ""))
    print(f"{'path':<26}{'grades':>8}{'grades/s':>11}{'p50 ms':>9}{'p99 ms':>9}{'CPU ms':>8}")
    for label, key in (("warm pool", "warm"), ("fresh interpreter", "fresh")):
        for phase in ("latency", "throughput"):
            row = summary[key][phase]
            name = f"{label} (c={row['concurrency']})"
            cpu = f"{row['cpu_ms_per_grade']:>8.2f}" if "cpu_ms_per_grade" in row else f"{'':>8}"
            print(
                f"{name:<26}{row['grades']:>8}{row['grades_per_s']:>11.1f}"
                f"{row['p50_ms']:>9.2f}{row['p99_ms']:>9.2f}{cpu}"
                + ("   (identical source)" if key == "warm" and source != "unique" else "")
            )
    unique = summary["warm"]["unique_sources"]
    if source != "unique":
        print(
            f"{'warm pool, unique sources':<26}{unique['grades']:>8}"
            f"{unique['grades_per_s']:>11.1f}{unique['p50_ms']:>9.2f}{unique['p99_ms']:>9.2f}"
            f"{unique['cpu_ms_per_grade']:>8.2f}   (c={unique['concurrency']})"
        )
    light = summary["warm"]["light_load"]
    print(
        f"{'warm pool, light load':<26}{light['grades']:>8}{'':>11}"
        f"{light['p50_ms']:>9.2f}{light['p99_ms']:>9.2f}"
        f"   (c=1, {light['think_ms']:.0f} ms between grades)"
    )
    floor = summary["fork_floor"]
    if "wall_ms" in floor:
        print(
            f"machine floor (bare fork of a warm interpreter running the reference unconfined, "
            f"no checks, c=1): {floor['wall_ms']:.2f} ms wall, {floor['cpu_ms']:.2f} ms CPU "
            f"per grade"
        )
        print(
            f"CPU per warm grade (unique sources, c={unique['concurrency']}, host + zygote + "
            f"children): {unique['cpu_ms_per_grade']:.2f} ms = {summary['cpu_vs_floor']}x "
            "the floor, measured in this run"
        )
    print(
        f"warm/fresh: {summary['throughput_ratio']}x grades/s, "
        f"{summary['p50_ratio']}x lower p50 latency"
    )
    if any(summary[k][p]["failures"] for k in ("warm", "fresh") for p in ("latency", "throughput")):
        print("WARNING: some grades did not pass; the numbers above are not comparable")
