"""`python -m bench submit` runs end to end and takes a Submit apart (numbers, not verdicts)."""

from __future__ import annotations

import json

from app.catalog import EXERCISES_DIR, Catalog
from app.grading.distribution_jobs import check_jobs
from app.grading.exercise_tools import golden_files
from bench import submit_latency


def test_the_bench_times_run_and_submit_and_names_each_job(capsys) -> None:
    status = submit_latency.main(["--repeats", "2", "--think-ms", "1", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["layers"]["seccomp"] and summary["layers"]["policy"]
    rows = {row["exercise"]: row for row in summary["exercises"]}
    assert set(rows) == set(submit_latency.DEFAULT_EXERCISES)
    catalog = Catalog.load(EXERCISES_DIR)
    for exercise_id, row in rows.items():
        exercise = catalog.get(exercise_id)
        assert exercise is not None
        assert row["failures"] == 0 and row["repeats"] == 2
        assert row["run_ms"]["p50"] <= row["run_ms"]["p90"]
        assert row["ratio_p50"] == round(row["submit_ms"]["p50"] / row["run_ms"]["p50"], 2)
        parts = row["breakdown"]
        stored = len(exercise.cases) + len(exercise.extra_cases)
        assert parts["learner"]["jobs"] == 1
        assert parts["learner"]["cases"] == stored + exercise.random_cases
        # The reference on the random cases: one job of the Submit's own, or one started ahead
        # (in the background, once the previous Submit was answered: when it has not answered
        # by the time the Submit comes, the Submit runs one of its own too).
        assert "reference" in parts or "ahead" in parts
        if "reference" in parts:
            assert parts["reference"]["jobs"] == 1
            assert parts["reference"]["cases"] == exercise.random_cases
        if "ahead" in parts:
            assert 0 < parts["ahead"]["jobs_per_grade"] <= 1
            assert parts["ahead"]["cases"] == exercise.random_cases
        # The reference's step settles every pair at its first look: the first stage only.
        check = exercise.distribution
        looks = (
            len(check_jobs(check, "", exercise.entry_point, "", exercise.limits)) if check else 0
        )
        assert parts.get("check", {"jobs": 0})["jobs"] == looks
        assert parts["host"]["before_first_job_ms"] <= parts["host"]["all_jobs_handed_over_ms"]
        cpu = row["children_cpu_ms"]
        # Both measured, nothing compared: at two repeats the medians are noise, and a Submit's
        # reference may have run ahead, before the Submit's own clock started.
        assert cpu["run"] > 0 and cpu["submit"] > 0


def test_golden_runs_each_exercises_correct_submissions_as_the_learners_code(capsys) -> None:
    """``--golden``: every exercise's golden correct submissions take the learner's turn, and
    each is accepted (the bench's exit status and its failures say so)."""
    catalog = Catalog.load(EXERCISES_DIR)
    with_golden = [e.id for e in catalog if golden_files(e, "correct")]
    argv = ["--golden", "--repeats", "1", "--think-ms", "1", "--json"]
    status = submit_latency.main(argv + [arg for i in with_golden for arg in ("--exercise", i)])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [row["exercise"] for row in summary["exercises"]] == with_golden
    for row in summary["exercises"]:
        assert row["learner_code"] == "golden correct submissions" and row["failures"] == 0
        assert row["breakdown"]["learner"]["jobs"] == 1
