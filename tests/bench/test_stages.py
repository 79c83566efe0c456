"""``python -m bench stages``: a tiny run names every stage, each with a figure, all grades
accepted (speed itself is printed by the bench, never asserted here)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench import stages
from bench.loadtest.servers import CHECKOUT


def test_a_tiny_run_splits_the_web_process_the_zygote_and_each_child() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench", "stages", "--requests", "20", "--json"],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    ).stdout
    summary = json.loads(out)
    assert summary["exercise_grades"] == 20 and summary["other"] == {}
    assert {"HTTP parse", "report serialised", "history: row kept"} <= set(summary["web_ms"])
    assert summary["web_ms"]["total"] > 0
    assert summary["zygote_ms"]["fork (the zygote's side)"] > 0
    assert set(summary["child"]) == {name for name, _, _ in stages.CHILD_STAGES} | {
        "teardown (after the reply, until reaped)"
    }
    # Every child measured reported its marks and was reaped with its whole usage.
    assert summary["child_total"]["children"] >= 20
    assert summary["child"]["compile (helpers, the learner's source)"]["cpu_ms"] > 0
    assert summary["child_total"]["faults_median"] > 0


@pytest.mark.parametrize("argv", [["--requests", "0"], ["--concurrency", "65"]])
def test_the_options_are_bounded(argv: list[str]) -> None:
    with pytest.raises(SystemExit, match="stages:"):
        stages.main(argv)
