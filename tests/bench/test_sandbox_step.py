"""`judge bench` runs end to end and reports both paths (numbers are printed, not judged)."""

from __future__ import annotations

import json

from app.catalog import EXERCISES_DIR
from bench.sandbox_step import run_bench


def test_bench_reports_warm_fresh_and_floor(capsys) -> None:
    status = run_bench(EXERCISES_DIR, n=4, concurrency=2, as_json=True, fresh_n=2)
    summary = json.loads(capsys.readouterr().out)
    assert status == 0  # every grade on both paths was accepted
    for path in ("warm", "fresh"):
        for phase in ("latency", "throughput"):
            row = summary[path][phase]
            assert row["failures"] == 0
            assert row["grades_per_s"] > 0 and row["p50_ms"] <= row["p99_ms"]
    unique = summary["warm"]["unique_sources"]  # every source new: compiled in its child
    assert unique["grades"] == 4 and unique["failures"] == 0 and unique["grades_per_s"] > 0
    light = summary["warm"]["light_load"]  # c=1 with a pause between grades
    assert light["concurrency"] == 1 and light["think_ms"] > 0 and light["failures"] == 0
    assert light["grades"] == 4 and light["p50_ms"] <= light["p99_ms"]
    assert summary["fork_floor"]["grades"] == 4
    assert summary["fork_floor"]["cpu_ms"] > 0
    assert summary["layers"]["seccomp"] and summary["layers"]["policy"]
