"""What the script prints: the targets from the issue (reported, never asserted), the count
of failed responses that decides the exit status, and the human-readable table."""

from __future__ import annotations

from typing import Any

TARGETS = {"p50_ms": 5.0, "p99_ms": 25.0, "grades_per_s": 300.0, "ratio": 15.0, "aim_ratio": 25.0}


def failures(summary: dict[str, Any]) -> int:
    """Responses that were not an accepted grade (503s excluded: saturation is not a failure)."""
    total = 0
    for side in ("warm", "fresh"):
        for phase in ("warm_up", "latency", "throughput", "light_load"):
            if phase in summary[side]:
                total += sum(summary[side][phase]["other"].values())
    return total


def print_table(summary: dict[str, Any]) -> None:
    load = summary["load_average"]
    layers = summary["warm"]["layers"]
    off = [name for name, on in layers.items() if not on]
    print(
        f"judge loadtest: {summary['exercise']} (correct solution, six cases) over HTTP on "
        f"{summary['host']}, {summary['cpus']} CPUs, {summary['client']} client, "
        + (
            "each submission its own source"
            if summary["source"] == "unique"
            else "ONE IDENTICAL SOURCE for every request"
        )
    )
    print(
        "load average (1/5/15 min): "
        f"{' '.join(map(str, load['start']))} at start, {' '.join(map(str, load['end']))} at end"
    )
    print(
        "layers on: "
        + ", ".join(n for n, on in layers.items() if on)
        + (f"; OFF: {', '.join(off)}" if off else "")
    )
    print(
        f"{'server':<20}{'c':>3}{'requests':>10}{'grades':>8}{'503s':>6}{'grades/s':>10}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'CPU ms/grade: server':>22}{'client':>8}"
    )
    for label, key in (("warm pool", "warm"), ("fresh interpreter", "fresh")):
        for phase in ("latency", "throughput"):
            row = summary[key][phase]
            p50 = f"{row['p50_ms']:.2f}" if row["p50_ms"] is not None else "-"
            p99 = f"{row['p99_ms']:.2f}" if row["p99_ms"] is not None else "-"
            print(
                f"{label:<20}{row['concurrency']:>3}{row['requests']:>10}{row['grades']:>8}"
                f"{row['saturated_503']:>6}{row['grades_per_s']:>10.1f}{p50:>9}{p99:>9}"
                f"{row['server_cpu_ms_per_grade'] or 0:>22.2f}"
                f"{row['client_cpu_ms_per_request'] or 0:>8.2f}"
            )
    light = summary["warm"].get("light_load")
    if light and light["p50_ms"] is not None:
        print(
            f"{'warm, light load':<20}{light['concurrency']:>3}{light['requests']:>10}"
            f"{light['grades']:>8}{light['saturated_503']:>6}{'':>10}{light['p50_ms']:>9.2f}"
            f"{light['p99_ms']:>9.2f}   ({light['think_ms']:.0f} ms between requests)"
        )
    t, meets, r = summary["targets"], summary["meets"], summary["ratio"]
    mark = {True: "meets", False: "MISSES"}
    warm = summary["warm"]
    budget = summary["cpu_budget"]
    if budget["ceiling_grades_per_s"]:
        print(
            f"CPU per warm grade at c={warm['throughput']['concurrency']}: "
            f"{budget['server_ms']} ms server (web process {budget['web_ms']}, sandbox "
            f"{budget['sandbox_ms']}) + {budget['client_ms']} ms load generator; "
            f"{summary['cpus']} CPUs cap this machine near {budget['ceiling_grades_per_s']} "
            "grades/s with the generator on the same cores"
        )
    if budget.get("floor_ms"):
        print(
            f"server CPU per grade against this machine's fork floor (measured in this run): "
            f"{budget['server_ms']} ms vs {budget['floor_ms']} ms = {budget['server_vs_floor']}x"
        )
    print("targets (issue 3; printed, not asserted):")
    print(
        f"  p50 <= {t['p50_ms']:g} ms at c=1: {warm['latency']['p50_ms']} ms "
        f"({mark[meets['p50_ms']]})"
    )
    print(
        f"  p99 <= {t['p99_ms']:g} ms at c=1: {warm['latency']['p99_ms']} ms "
        f"({mark[meets['p99_ms']]})"
    )
    print(
        f"  >= {t['grades_per_s']:g} grades/s at c={warm['throughput']['concurrency']}: "
        f"{warm['throughput']['grades_per_s']} ({mark[meets['grades_per_s']]})"
    )
    print(
        f"  >= {t['ratio']:g}x the fresh interpreter's grades/s (aim {t['aim_ratio']:g}x): "
        f"{r['throughput']}x ({mark[meets['ratio']]}); p50 {r['p50']}x lower"
    )
    bad = failures(summary)
    if bad:
        print(f"WARNING: {bad} response(s) were not accepted grades; numbers not comparable")
