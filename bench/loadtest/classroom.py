"""The classroom mix: K learners stuck in an infinite loop (or a memory bomb), each sending it
again as soon as its report comes back, and one learner sending correct code every 200 ms.

    python -m bench classroom [--loopers K] [--bombs] [--mix-seconds S] [--json]
    judge loadtest classroom [the same options]

Starts the real judge (``judge serve``, default settings) on a free loopback port and runs, in
one run so that the figures compare: the learner alone (the idle p50), a lone hanging
submission (its report's latency), then the mix. Prints the learner's p50/p99 in the mix
beside the idle p50, the hanging reports' p50, and every status code each side got, with the
issue's bars (printed, not asserted). Every source is unique (a comment with a counter).
Loopback only; bounded in seconds and in requests. Exit status 1 if the learner ever got
anything but an accepted 200.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from app.catalog import EXERCISES_DIR, Catalog, Exercise
from bench.loadtest.clients import RAW_ERRORS, RawConnection
from bench.loadtest.servers import (
    base_url,
    free_port,
    loopback,
    running_server,
    scratch_environment,
)
from bench.stats import percentile

LEARNER_PERIOD_S = 0.2
IDLE_REQUESTS = 40
LONE_HANGING = 3
MAX_REQUESTS = 20_000  # across the whole run, whatever the durations
BACKOFF_CAP_S = 1.0  # a 503's Retry-After, as a client honours it, at most this long
# The bars: the learner's p50 against its idle p50, its p99, a lone hanging report
# against the budget plus half a second, the hanging reports' p50 against the budget.
BARS = {
    "learner_p50_x_idle": 3.0,
    "learner_p99_ms": 100.0,
    "lone_extra_ms": 500.0,
    "hanging_p50_x_budget": 3.0,
}
LOOP = "    while True:\n        pass\n"
BOMB = "    hoard = []\n    while True:\n        hoard.append([0] * 100000)\n"


def stuck_source(exercise: Exercise, bomb: bool) -> str:
    """A learner's infinite loop (or memory bomb) with the exercise's signature."""
    params = ", ".join(exercise.parameters)
    return f"def {exercise.entry_point}({params}):\n{BOMB if bomb else LOOP}"


class Sender:
    """One simulated learner: a keep-alive connection, its own unique sources, its tallies."""

    serial = itertools.count()
    budget = MAX_REQUESTS

    def __init__(self, url: str, path: str, code: str) -> None:
        target = httpx.URL(url)
        self.connection = RawConnection(target.host, target.port or 80, path)
        self.code = code
        self.latencies: list[float] = []
        self.statuses: Counter[str] = Counter()
        self.verdicts: Counter[str] = Counter()

    async def send(self) -> int:
        """One submission; returns the HTTP status (0: transport error or the budget spent)."""
        if Sender.budget <= 0:
            return 0
        Sender.budget -= 1
        body = json.dumps({"code": f"{self.code}\n# submission {next(Sender.serial)}\n"})
        started = time.perf_counter()
        try:
            status, data = await self.connection.post(body.encode())
        except RAW_ERRORS as exc:
            self.statuses[f"error {type(exc).__name__}"] += 1
            return 0
        self.statuses[str(status)] += 1
        if status == 200:
            self.latencies.append((time.perf_counter() - started) * 1000)
            self.verdicts[str(json.loads(data).get("verdict"))] += 1
        return status

    def summary(self) -> dict[str, Any]:
        values = self.latencies
        return {
            "reports": len(values),
            "p50_ms": round(percentile(values, 0.5), 1) if values else None,
            "p99_ms": round(percentile(values, 0.99), 1) if values else None,
            "max_ms": round(max(values), 1) if values else None,
            "statuses": dict(self.statuses),
            "verdicts": dict(self.verdicts),
        }


async def learner(sender: Sender, until: float, count: int | None = None) -> None:
    """Correct code every LEARNER_PERIOD_S (the period from send to send, as a timer)."""
    sent = 0
    next_at = time.perf_counter()
    while time.perf_counter() < until and (count is None or sent < count):
        await sender.send()
        sent += 1
        next_at += LEARNER_PERIOD_S
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def looper(sender: Sender, until: float) -> None:
    """Send the stuck code again as soon as its report is back (after a 503, back off)."""
    while time.perf_counter() < until and Sender.budget > 0:
        status = await sender.send()
        if status != 200:
            await asyncio.sleep(BACKOFF_CAP_S if status == 503 else 0.1)


async def run_phases(url: str, path: str, exercise: Exercise, args: argparse.Namespace) -> dict:
    correct, stuck = exercise.solution_code, stuck_source(exercise, args.bombs)
    warm = Sender(url, path, correct)
    await learner(warm, time.perf_counter() + 30, count=min(20, args.idle_requests))
    idle = Sender(url, path, correct)
    await learner(idle, time.perf_counter() + 60, count=args.idle_requests)
    lone = Sender(url, path, stuck)
    for _ in range(LONE_HANGING):
        await lone.send()
    until = time.perf_counter() + args.mix_seconds
    mixed_learner = Sender(url, path, correct)
    loopers = [Sender(url, path, stuck) for _ in range(args.loopers)]
    await asyncio.gather(learner(mixed_learner, until), *(looper(one, until) for one in loopers))
    for sender in (warm, idle, lone, mixed_learner, *loopers):
        await sender.connection.close()
    hanging = [value for one in loopers for value in one.latencies]
    statuses: Counter[str] = Counter()
    verdicts: Counter[str] = Counter()
    for one in loopers:
        statuses.update(one.statuses)
        verdicts.update(one.verdicts)
    return {
        "idle": idle.summary(),
        "lone_hanging": lone.summary(),
        "mix_learner": mixed_learner.summary(),
        "mix_hanging": {
            "reports": len(hanging),
            "p50_ms": round(percentile(hanging, 0.5), 1) if hanging else None,
            "p99_ms": round(percentile(hanging, 0.99), 1) if hanging else None,
            "statuses": dict(statuses),
            "verdicts": dict(verdicts),
        },
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    host = loopback(args.host)
    exercise = Catalog.load(args.exercises).get(args.exercise)
    if exercise is None:
        raise SystemExit(f"classroom: unknown exercise {args.exercise!r}")
    path = f"/api/exercises/{exercise.id}/submissions"
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="judge-classroom-") as scratch:
        env = scratch_environment(scratch, args.exercises)
        port = free_port(host)
        url = base_url(host, port)
        command = [sys.executable, "-m", "app.cli", "serve", "--host", host, "--port", str(port)]
        with running_server(command, url, env, Path(scratch) / "server.log") as health:
            phases = asyncio.run(run_phases(url, path, exercise, args))
            pool = httpx.get(url + "/api/health", timeout=10).json().get("pool", {})
    return {
        "exercise": exercise.id,
        "variant": "memory bombs" if args.bombs else "infinite loops",
        "loopers": args.loopers,
        "mix_seconds": args.mix_seconds,
        "time_ms": exercise.limits.time_ms,
        "cpus": os.cpu_count(),
        "load_average": {
            "start": [round(x, 2) for x in load_start],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
        "layers": health.get("sandbox", {}),
        "lanes_after": pool.get("lanes"),
        **phases,
        "bars": _bars(phases, exercise.limits.time_ms),
    }


def _bars(phases: dict[str, Any], time_ms: int) -> dict[str, Any]:
    idle, mix = phases["idle"]["p50_ms"], phases["mix_learner"]
    lone, hanging = phases["lone_hanging"]["p50_ms"], phases["mix_hanging"]["p50_ms"]
    learner_codes = set(mix["statuses"]) | set(phases["idle"]["statuses"])
    return {
        "learner_p50_x_idle": round(mix["p50_ms"] / idle, 2) if mix["p50_ms"] and idle else None,
        "learner_p50_ok": bool(mix["p50_ms"] and idle)
        and mix["p50_ms"] <= BARS["learner_p50_x_idle"] * idle,
        "learner_p99_ok": mix["p99_ms"] is not None and mix["p99_ms"] <= BARS["learner_p99_ms"],
        "learner_only_200": learner_codes == {"200"} and set(mix["verdicts"]) == {"accepted"},
        "lone_ok": lone is not None and lone <= time_ms + BARS["lone_extra_ms"],
        "hanging_p50_ok": hanging is not None and hanging <= BARS["hanging_p50_x_budget"] * time_ms,
    }


def print_summary(summary: dict[str, Any]) -> None:
    load, bars, time_ms = summary["load_average"], summary["bars"], summary["time_ms"]
    mark = {True: "meets", False: "MISSES"}
    print(
        f"judge classroom: {summary['loopers']} learners re-submitting {summary['variant']} + "
        f"one learner sending correct code every {LEARNER_PERIOD_S * 1000:.0f} ms, "
        f"{summary['mix_seconds']:g} s, {summary['exercise']} (budget {time_ms} ms), "
        f"{summary['cpus']} CPUs, unique sources"
    )
    print(
        f"load average (1/5/15 min): {' '.join(map(str, load['start']))} at start, "
        f"{' '.join(map(str, load['end']))} at end"
    )
    idle, mix, lone = summary["idle"], summary["mix_learner"], summary["lone_hanging"]
    hanging = summary["mix_hanging"]
    print(f"{'':<28}{'reports':>8}{'p50 ms':>9}{'p99 ms':>9}  status codes")
    for label, row in (
        ("learner alone (idle)", idle),
        ("learner in the mix", mix),
        ("lone hanging submission", lone),
        ("hanging, in the mix", hanging),
    ):
        p50 = f"{row['p50_ms']:.1f}" if row["p50_ms"] is not None else "-"
        p99 = f"{row['p99_ms']:.1f}" if row["p99_ms"] is not None else "-"
        print(f"{label:<28}{row['reports']:>8}{p50:>9}{p99:>9}  {row['statuses']}")
    print(
        f"hanging verdicts in the mix: {hanging['verdicts']}; lanes after: {summary['lanes_after']}"
    )
    print("bars (issue 8; printed, not asserted):")
    print(
        f"  learner p50 <= {BARS['learner_p50_x_idle']:g}x idle p50: "
        f"{bars['learner_p50_x_idle']}x ({mark[bars['learner_p50_ok']]})"
    )
    print(
        f"  learner p99 <= {BARS['learner_p99_ms']:g} ms: {mix['p99_ms']} ms "
        f"({mark[bars['learner_p99_ok']]})"
    )
    print(f"  learner never anything but an accepted 200: {mark[bars['learner_only_200']]}")
    print(
        f"  lone hanging report <= {time_ms + BARS['lone_extra_ms']:g} ms: {lone['p50_ms']} ms "
        f"p50, {lone['max_ms']} ms max ({mark[bars['lone_ok']]})"
    )
    print(
        f"  hanging reports' p50 in the mix <= {BARS['hanging_p50_x_budget'] * time_ms:g} ms: "
        f"{hanging['p50_ms']} ms ({mark[bars['hanging_p50_ok']]})"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bench classroom",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--loopers", type=int, default=6, help="stuck learners; default 6")
    parser.add_argument("--bombs", action="store_true", help="memory bombs, not plain loops")
    parser.add_argument("--mix-seconds", type=float, default=20.0, help="the mix; default 20")
    parser.add_argument("--idle-requests", type=int, default=IDLE_REQUESTS)
    parser.add_argument("--exercise", default="speculative-decoding-verify")
    parser.add_argument("--exercises", type=Path, default=EXERCISES_DIR)
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to serve on")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not 0 <= args.loopers <= 64:
        raise SystemExit("classroom: --loopers must be between 0 and 64")
    if not 0 < args.mix_seconds <= 300:
        raise SystemExit("classroom: --mix-seconds must be in (0, 300]")
    if not 1 <= args.idle_requests <= 1000:
        raise SystemExit("classroom: --idle-requests must be between 1 and 1000")
    args.exercises = Path(args.exercises).resolve()
    summary = run(args)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print_summary(summary)
    return 0 if summary["bars"]["learner_only_200"] else 1
