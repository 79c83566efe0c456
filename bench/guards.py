"""`python -m bench guards`: what the policy's guards cost on hot loops, guarded against plain.

Each construct is a one-line learner function, compiled twice in this process: under the policy
(``compile_learner``, ``Policy().namespace()``) as the child runs it, and as plain Python with
the real numpy. Then the resample exercise's distribution driver runs the reference step for
its trials both ways, as Submit does. Times are this thread's CPU time (a shared machine's
other work does not count; the code is single-threaded and does no I/O), guarded and plain runs
alternate, and the numbers are medians over the repeats. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import timeit
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox import values
from sandbox.policy import HELPERS_FILENAME, Policy, compile_learner

EXERCISE = Path(__file__).resolve().parents[1] / "exercises" / "speculative-decoding-resample"

SETUP = """
import numpy as np
p = np.array([[0.45, 0.25, 0.1, 0.2]] * 4)
q = np.array([[0.05, 0.6, 0.05, 0.3]] * 3)
row = p[0]
tokens = []
"""
# name -> the learner expression it times (each becomes a function of no arguments).
CONSTRUCTS = {
    "np.maximum (read)": "np.maximum",
    "p.sum (read)": "p.sum",
    "tokens.append (read)": "tokens.append",
    "rng.random (read)": "rng.random",
    "np.maximum(a, 0.0)": "np.maximum(row - q[0], 0.0)",
    "row.sum()": "row.sum()",
    "np.asarray(row, dtype=float)": "np.asarray(row, dtype=float)",
    "np.cumsum(row)": "np.cumsum(row)",
    "np.searchsorted(c, u, side=)": "np.searchsorted(row, 0.3, side='right')",
    "rng.random()": "rng.random()",
    "p[1, 2] / q[1, 2] (no guard)": "p[1, 2] / q[1, 2]",
    "row - q[0] (no guard)": "row - q[0]",
}


def _functions(guarded: bool) -> dict[str, Callable[[], Any]]:
    source = SETUP + "".join(
        f"def c{index}():\n    return {expression}\n"
        for index, expression in enumerate(CONSTRUCTS.values())
    )
    namespace: dict[str, Any]
    if guarded:
        namespace = Policy().namespace()
        exec(compile_learner(source), namespace)
    else:
        namespace = {}
        exec(compile(source, "plain.py", "exec"), namespace)
    namespace["rng"] = values.CountingGenerator(1)
    return {name: namespace[f"c{index}"] for index, name in enumerate(CONSTRUCTS)}


def _step(guarded: bool) -> Callable[..., Any]:
    helpers = (EXERCISE / "helpers.py").read_text()
    solution = (EXERCISE / "solution.py").read_text()
    namespace: dict[str, Any]
    if guarded:
        namespace = Policy().namespace()
        exec(compile_learner(helpers, HELPERS_FILENAME), namespace)
        exec(compile_learner(solution), namespace)
    else:
        namespace = {}
        exec(compile(helpers, "helpers.py", "exec"), namespace)
        exec(compile(solution, "solution.py", "exec"), namespace)
    return namespace["speculative_step"]  # type: ignore[no-any-return]


def _driver() -> tuple[Callable[..., Any], dict[str, Any]]:
    namespace: dict[str, Any] = {}
    exec(compile((EXERCISE / "distribution.py").read_text(), "driver.py", "exec"), namespace)
    pair = tomllib.loads((EXERCISE / "exercise.toml").read_text())["distribution"]["pairs"][0]
    return namespace["drive"], pair


def micro_costs(number: int, repeat: int) -> list[dict[str, Any]]:
    """Microseconds per construct, guarded and plain (medians of ``repeat`` runs of ``number``)."""
    guarded, plain = _functions(True), _functions(False)
    rows = []
    for name in CONSTRUCTS:
        timings: dict[str, list[float]] = {"guarded": [], "plain": []}
        for _ in range(repeat):
            for side, function in (("guarded", guarded[name]), ("plain", plain[name])):
                seconds = timeit.timeit(function, timer=time.thread_time, number=number)
                timings[side].append(seconds / number * 1e6)
        rows.append(
            {"construct": name, **{side: statistics.median(t) for side, t in timings.items()}}
        )
    return rows


def driver_costs(repeat: int) -> dict[str, Any]:
    """Milliseconds for the distribution driver's trials of the reference, guarded and plain."""
    drive, pair = _driver()
    p = values.build_argument("ndarray", pair["p"])
    q = values.build_argument("ndarray", pair["q"])
    steps = {"guarded": _step(True), "plain": _step(False)}
    timings: dict[str, list[float]] = {"guarded": [], "plain": []}
    counts: dict[str, Any] = {}
    for round_ in range(repeat + 1):
        for side, step in steps.items():
            started = time.thread_time()
            counts[side] = drive(step, values.CountingGenerator, p, q, pair["trials"], pair["seed"])
            if round_:  # the first round warms both up
                timings[side].append((time.thread_time() - started) * 1000)
    return {
        "trials": pair["trials"],
        **{side: statistics.median(t) for side, t in timings.items()},
        # The policy changes what the step costs, never what it computes.
        "same_counts": counts["guarded"] == counts["plain"],
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench guards", description=__doc__)
    parser.add_argument("--number", type=int, default=20_000, help="calls per timing")
    parser.add_argument("--repeat", type=int, default=7, help="timings per construct")
    parser.add_argument("--driver-repeat", type=int, default=15, help="runs of the driver")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = micro_costs(args.number, args.repeat)
    driver = driver_costs(args.driver_repeat)
    if args.json:
        print(json.dumps({"constructs": rows, "driver": driver}))
        return 0
    print(f"{'construct':32s} {'guarded us':>10s} {'plain us':>9s} {'ratio':>6s}")
    for row in rows:
        ratio = row["guarded"] / row["plain"]
        print(f"{row['construct']:32s} {row['guarded']:10.2f} {row['plain']:9.2f} {ratio:6.1f}")
    ratio = driver["guarded"] / driver["plain"]
    print(
        f"distribution driver, {driver['trials']} trials of the reference: "
        f"guarded {driver['guarded']:.1f} ms, plain {driver['plain']:.1f} ms, ratio {ratio:.2f}"
        + ("" if driver["same_counts"] else " (the counts differ!)")
    )
    return 0
