"""The HTTP load script, run end to end with tiny counts: its JSON shape and its grades."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.loadtest import FreshJudge, add_arguments, loopback, percentile

ROOT = Path(__file__).resolve().parents[2]
PHASE_KEYS = {
    "concurrency", "think_ms", "requests", "grades", "accepted", "saturated_503", "other",
    "seconds", "grades_per_s", "p50_ms", "p99_ms", "mean_ms", "client_cpu_ms_per_request",
    "server_cpu_ms_per_grade", "web_cpu_ms_per_grade", "sandbox_cpu_ms_per_grade",
}  # fmt: skip


def _no_loadtest_servers_left() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "judge-loadtest-" in line or "--serve-fresh" in line:
            found.append(f"{entry.name}: {line}")
    return found


@pytest.mark.timeout(300)
@pytest.mark.parametrize("client", ["httpx", "raw"])
def test_tiny_run_prints_the_summary_as_json_and_every_grade_is_accepted(client: str) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "bench.loadtest", "--requests", "5", "--fresh-requests", "5",
         "--concurrency", "2", "--duration", "60", "--json", "--client", client],
        cwd=ROOT, capture_output=True, text=True, timeout=280, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    summary = json.loads(completed.stdout)
    assert summary["exercise"] == "speculative-decoding-verify"
    assert summary["host"] == "127.0.0.1"
    assert summary["client"] == client
    assert len(summary["load_average"]["start"]) == len(summary["load_average"]["end"]) == 3
    for side in ("warm", "fresh"):
        layers = summary[side]["layers"]
        assert layers["seccomp"] is True and layers["policy"] is True, layers
        for phase, wanted in (("latency", 5), ("throughput", 5)):
            row = summary[side][phase]
            assert set(row) == PHASE_KEYS, row
            assert row["requests"] == wanted, row
            assert row["grades"] == row["accepted"] == wanted - row["saturated_503"], row
            assert row["other"] == {}, row
            assert row["p50_ms"] <= row["p99_ms"]
            assert row["grades_per_s"] > 0
    light = summary["warm"]["light_load"]  # paced c=1, warm server only
    assert set(light) == PHASE_KEYS and light["think_ms"] > 0 and light["concurrency"] == 1
    assert light["grades"] == light["accepted"] == 5 and light["other"] == {}, light
    assert "light_load" not in summary["fresh"]
    assert summary["fresh"]["pool"]["zygote_pid"] is None  # a fresh interpreter each time
    assert summary["warm"]["pool"]["zygote_pid"] is not None
    assert summary["ratio"]["throughput"] > 0
    assert set(summary["meets"]) == {"p50_ms", "p99_ms", "grades_per_s", "ratio"}
    assert summary["targets"]["grades_per_s"] == 300
    assert (
        summary["cpu_budget"]["server_ms"] > 0 and summary["cpu_budget"]["ceiling_grades_per_s"] > 0
    )
    assert _no_loadtest_servers_left() == []


@pytest.mark.parametrize("host", ["10.0.0.1", "192.168.1.5", "8.8.8.8", "example.com", "0.0.0.0"])
def test_refuses_anything_but_loopback(host: str) -> None:
    with pytest.raises(SystemExit):
        loopback(host)


def test_loopback_hosts_are_accepted() -> None:
    assert loopback("127.0.0.1") == "127.0.0.1"
    assert loopback("localhost") == "127.0.0.1"
    assert loopback("::1") == "::1"


def test_refusal_happens_before_any_server_starts() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "bench.loadtest", "--host", "10.1.2.3", "--requests", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert completed.returncode != 0
    assert "loopback" in completed.stderr


def test_fresh_judge_grades_like_the_judge(catalog) -> None:  # type: ignore[no-untyped-def]
    exercise = catalog.get("speculative-decoding-verify")
    judge = FreshJudge(workers=1)
    try:
        assert judge.grade(exercise, exercise.solution_code).verdict.value == "accepted"
        assert judge.grade(exercise, exercise.starter_code).verdict.value != "accepted"
        health = judge.health()
        assert health["pool"]["completed"] == 2  # type: ignore[index]
        assert health["layers"]["seccomp"] is True  # type: ignore[index]
    finally:
        judge.close()


def test_percentile_picks_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 51.0  # index round(49.5) = 50
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0


def test_options_fit_under_a_judge_subcommand() -> None:
    """What a `judge loadtest` subcommand in app/cli.py would do with add_arguments()."""
    parser = argparse.ArgumentParser(prog="judge")
    parser.add_argument("--exercises", type=Path)
    commands = parser.add_subparsers(dest="command", required=True)
    add_arguments(commands.add_parser("loadtest"), exercises_option=False)
    args = parser.parse_args(["--exercises", "x", "loadtest", "--requests", "7", "--json"])
    assert (args.requests, args.json, args.exercises, args.concurrency) == (7, True, Path("x"), 8)
