"""The classroom load test, end to end with tiny counts: its JSON shape, the learner's 200s,
the stuck learners' verdicts, and loopback only (numbers are printed, never judged here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def classroom(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", "classroom", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


@pytest.mark.timeout(300)
@pytest.mark.parametrize("variant", [[], ["--bombs"]], ids=["loops", "memory bombs"])
def test_a_tiny_classroom_run_reports_both_sides(variant: list[str]) -> None:
    completed = classroom(
        "--loopers", "2", "--mix-seconds", "2", "--idle-requests", "3", "--json", *variant
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    summary = json.loads(completed.stdout)
    assert summary["variant"] == ("memory bombs" if variant else "infinite loops")
    for side in ("idle", "mix_learner"):
        assert set(summary[side]["statuses"]) == {"200"}, summary[side]
        assert set(summary[side]["verdicts"]) == {"accepted"}
    assert summary["idle"]["reports"] == 3
    stuck = {"time_limit_exceeded", "memory_limit_exceeded"} if variant else {"time_limit_exceeded"}
    lone = summary["lone_hanging"]
    assert lone["reports"] == 3 and set(lone["verdicts"]) <= stuck
    hanging = summary["mix_hanging"]
    assert hanging["reports"] >= 1
    assert set(hanging["verdicts"]) <= stuck
    assert set(hanging["statuses"]) <= {"200", "503"}  # never another 5xx
    assert set(summary["bars"]) >= {"learner_p50_ok", "learner_p99_ok", "lone_ok"}
    assert summary["lanes_after"]["slow"]["in_use"] == 0


def test_the_classroom_refuses_anything_but_loopback() -> None:
    completed = classroom("--host", "10.1.2.3", timeout=60)
    assert completed.returncode != 0
    assert "loopback" in completed.stderr


def test_the_classroom_is_reachable_as_a_loadtest_subcommand() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "app.cli", "loadtest", "classroom", "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "--loopers" in completed.stdout and "--bombs" in completed.stdout
