"""After every other hostile module (this one is collected last among them, and
conftest.py keeps it last): the shared judge still accepts the reference, its zygote never
restarted, and closing it leaves no process behind.
"""

from __future__ import annotations

from pathlib import Path

from app.grading.judge import Judge
from app.schemas import Verdict
from tests.sandbox.hostile import EXERCISE, children, grade, wait_for_no_children


def test_the_reference_is_still_accepted_after_all_of_that(hostile_judge: Judge) -> None:
    report, _ = grade(hostile_judge, EXERCISE.solution_code)
    assert report.verdict == Verdict.accepted
    assert report.passed == report.total == 6
    status = hostile_judge.pool.status()
    assert status["alive"] and status["restarts"] == 0  # the zygote survived every test


def test_closing_the_judge_leaves_no_process_behind(hostile_judge: Judge) -> None:
    zygote = hostile_judge.pool.status()["zygote_pid"]
    assert zygote is not None
    spares = children(zygote)
    hostile_judge.close()
    assert wait_for_no_children(zygote) == []
    assert not Path(f"/proc/{zygote}").exists()
    for pid in spares:
        assert not Path(f"/proc/{pid}").exists(), f"child {pid} outlived the zygote"
