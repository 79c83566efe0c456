"""The spares' rehearsal jobs really walk the harness paths real jobs take, without errors.

A rehearsal whose code failed early would pre-pay nothing; its result is never reported
anywhere, so this is where such a regression shows.
"""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.child import REHEARSAL_GENERATOR_JOB, REHEARSAL_JOB, run_job
from sandbox.policy import Policy


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def start_case(self, index: int) -> None:
        pass


@pytest.mark.parametrize(
    "job", [REHEARSAL_JOB, REHEARSAL_GENERATOR_JOB], ids=["global", "generator"]
)
def test_rehearsal_jobs_compile_and_return_on_every_case(job: dict[str, Any]) -> None:
    recorder = Recorder()
    run_job(job, recorder, Policy(), 0)  # type: ignore[arg-type]
    kinds = [message["t"] for message in recorder.messages]
    assert kinds == ["ready", *["case"] * len(job["cases"]), "end"]
    cases = [message for message in recorder.messages if message["t"] == "case"]
    assert all(case["outcome"] == "returned" and case["error"] is None for case in cases), cases
    if job["random_mode"] == "generator":
        assert all(case["draws"] > 0 for case in cases)  # the counting generators were used
