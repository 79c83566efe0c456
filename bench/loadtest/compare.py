"""The comparison itself: the warm server then the fresh one through the same phases, in a
scratch folder (temporary history database), folded into one summary with ratios, the CPU
budget per grade and which targets were met."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.catalog import Catalog
from bench.loadtest.measuring import run_server_phases
from bench.loadtest.report import TARGETS
from bench.loadtest.servers import base_url, free_port, loopback, scratch_environment


def run(args: argparse.Namespace) -> dict[str, Any]:
    host = loopback(args.host)
    catalog = Catalog.load(args.exercises)
    exercise = catalog.get(args.exercise)
    if exercise is None:
        raise SystemExit(f"loadtest: unknown exercise {args.exercise!r}")
    bodies = submissions(exercise.solution_code, same_source=args.same_source)
    path = f"/api/exercises/{exercise.id}/submissions"
    fresh_count = args.fresh_requests or max(10, args.requests // 20)
    load_start = os.getloadavg()

    with tempfile.TemporaryDirectory(prefix="judge-loadtest-") as scratch:
        # The baseline server runs `-m bench.loadtest`: bench/ is found in the checkout.
        env = scratch_environment(scratch, args.exercises)
        log_path = Path(scratch) / "servers.log"

        port = free_port(host)
        warm_cmd = [sys.executable, "-m", "app.cli", "serve", "--host", host, "--port", str(port)]
        warm = run_server_phases(
            warm_cmd,
            base_url(host, port),
            env,
            log_path,
            bodies,
            path,
            count=args.requests,
            duration=args.duration,
            concurrency=args.concurrency,
            client=args.client,
            light_load=True,
        )
        port = free_port(host)
        fresh_cmd = [
            sys.executable,
            "-m",
            "bench.loadtest",
            "--host",
            host,
            "--serve-fresh",
            str(port),
        ]
        fresh = run_server_phases(
            fresh_cmd,
            base_url(host, port),
            env,
            log_path,
            bodies,
            path,
            count=fresh_count,
            duration=args.duration,
            concurrency=args.concurrency,
            client=args.client,
        )

    # The machine's floor, measured in this run: what the server's CPU per grade is set against.
    from bench.sandbox_step import fork_floor

    floor = fork_floor(exercise, 200)

    def ratio(a: float | None, b: float | None) -> float | None:
        return round(a / b, 1) if a and b else None

    warm_rate, fresh_rate = warm["throughput"]["grades_per_s"], fresh["throughput"]["grades_per_s"]
    summary: dict[str, Any] = {
        "exercise": exercise.id,
        "host": host,
        "client": args.client,
        "source": "identical" if args.same_source else "unique",
        "fork_floor": floor,
        "cpus": os.cpu_count(),
        "load_average": {
            "start": [round(x, 2) for x in load_start],
            "end": [round(x, 2) for x in os.getloadavg()],
        },
        "warm": warm,
        "fresh": fresh,
        "ratio": {
            "throughput": ratio(warm_rate, fresh_rate),
            "p50": ratio(fresh["latency"]["p50_ms"], warm["latency"]["p50_ms"]),
        },
        "targets": dict(TARGETS),
    }
    server_ms = warm["throughput"]["server_cpu_ms_per_grade"]
    client_ms = warm["throughput"]["client_cpu_ms_per_request"]
    per_grade = (server_ms or 0) + (client_ms or 0)
    summary["cpu_budget"] = {
        "server_ms": server_ms,
        "web_ms": warm["throughput"]["web_cpu_ms_per_grade"],
        "sandbox_ms": warm["throughput"]["sandbox_cpu_ms_per_grade"],
        "client_ms": client_ms,
        "floor_ms": floor.get("cpu_ms"),
        "server_vs_floor": ratio(server_ms, floor.get("cpu_ms")),
        "ceiling_grades_per_s": (
            round((os.cpu_count() or 1) * 1000 / per_grade, 1) if per_grade else None
        ),
    }
    summary["meets"] = {
        "p50_ms": _at_most(warm["latency"]["p50_ms"], TARGETS["p50_ms"]),
        "p99_ms": _at_most(warm["latency"]["p99_ms"], TARGETS["p99_ms"]),
        "grades_per_s": warm_rate >= TARGETS["grades_per_s"],
        "ratio": (summary["ratio"]["throughput"] or 0) >= TARGETS["ratio"],
    }
    return summary


def _at_most(value: float | None, bar: float) -> bool:
    return value is not None and value <= bar


def submissions(code: str, *, same_source: bool = False) -> Callable[[], bytes]:
    """Request bodies: each one a new source (a comment with a counter), as learners send
    them; with ``same_source`` one identical source every time (labelled so when printed)."""
    if same_source:
        body = json.dumps({"code": code}).encode()
        return lambda: body
    serial = itertools.count()
    return lambda: json.dumps({"code": f"{code}\n# submission {next(serial)}\n"}).encode()
