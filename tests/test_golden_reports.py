"""Whole reports of the golden submissions, kept beside them (exercism's ``results.json`` way).

``tests/solutions/<exercise>/<name>.py`` has its Run report in ``<name>.report.json``: every
field a learner sees, timings left out. A change to any message, verdict or value shows up
here as a diff to read. After a deliberate change, rewrite the files and review the diff:

    JUDGE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden_reports.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge
from tests import golden

SUBMISSIONS = golden.files("*.py")
UPDATE = os.environ.get("JUDGE_UPDATE_GOLDEN") == "1"


def _without_timings(value: Any) -> Any:
    """The report minus what differs from run to run (durations)."""
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k != "duration_ms"}
    if isinstance(value, list):
        return [_without_timings(item) for item in value]
    return value


@pytest.mark.parametrize("path", SUBMISSIONS, ids=golden.name)
def test_the_run_report_is_the_golden_one(path: Path, judge: Judge, catalog: Catalog) -> None:
    exercise = catalog.get(golden.exercise_of(path))
    assert exercise is not None, f"{golden.exercise_of(path)} is not an exercise"
    report = judge.grade(exercise, path.read_text())
    actual = _without_timings(report.model_dump(mode="json"))
    kept = path.with_suffix(".report.json")
    if UPDATE:
        kept.write_text(json.dumps(actual, indent=1, ensure_ascii=False) + "\n")
    assert kept.is_file(), f"no {kept.name}: run with JUDGE_UPDATE_GOLDEN=1 and review it"
    assert actual == json.loads(kept.read_text())


def test_every_golden_report_belongs_to_a_submission() -> None:
    orphans = [
        report for report in golden.files("*.report.json") if not report.with_name(
            report.name.removesuffix(".report.json") + ".py").is_file()
    ]  # fmt: skip
    assert orphans == []
