"""The spares' rehearsal job really walks the harness path a real job takes, without errors.

A rehearsal whose code failed early would pre-pay nothing, and its result is never reported
anywhere, so this is where such a regression shows. (A second rehearsal job for the generator
path was tried and dropped: it cost about 15% of the throughput for no latency gain.)
"""

from __future__ import annotations

from typing import Any

from sandbox.child import REHEARSAL_JOB, run_job
from sandbox.policy import Policy


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)

    def start_case(self, index: int) -> None:
        pass


def test_the_rehearsal_job_compiles_and_returns_on_every_case() -> None:
    recorder = Recorder()
    run_job(REHEARSAL_JOB, recorder, Policy(), 0)  # type: ignore[arg-type]
    kinds = [message["t"] for message in recorder.messages]
    assert kinds == ["ready", *["case"] * len(REHEARSAL_JOB.cases), "end"]
    cases = [message for message in recorder.messages if message["t"] == "case"]
    assert all(case["outcome"] == "returned" and case["error"] is None for case in cases), cases
