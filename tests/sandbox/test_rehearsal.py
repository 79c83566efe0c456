"""The spares' rehearsal job really walks the harness paths the exercises' jobs take, without
errors.

A rehearsal whose code failed early would pre-pay nothing, and its result is never reported
anywhere, so this is where such a regression shows. (A second rehearsal job for the generator
path was once tried and dropped: it cost about 15% of the throughput for no latency gain. The
one job now walks that path itself, and the driver's, at the cost of one compile as before.)
"""

from __future__ import annotations

from typing import Any

from sandbox import values
from sandbox.child import REHEARSAL_JOB, rehearse, run_job
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
    # Through the trusted driver to the step (helpers included), a step that drew from each
    # kind of generator, and arrays left as built.
    for case in cases:
        assert case["value"]["t"] == "dict"
        keys = [key["v"] for key, _ in case["value"]["v"]]
        assert keys == ["first", "step", "drafts", "draws"], case["value"]
        assert case["draws"] >= 2 and case["inputs_after"] == {}
    specs = [case["rng"] for case in REHEARSAL_JOB.cases]
    assert {next(iter(spec)) for spec in specs} == {"seed", "scripted"}
    kinds_used = set(REHEARSAL_JOB.parameters.values())
    assert kinds_used == {"list", "ndarray", "value", "rng"}
    assert REHEARSAL_JOB.helpers and REHEARSAL_JOB.driver


def test_rehearse_runs_from_the_job_document_and_twice_alike(monkeypatch: Any) -> None:
    # A spare rehearses once; the zygote's warm-up before it: both must run the whole job.
    built: list[str] = []
    original = values.build_argument

    def counted(kind: str, raw: Any) -> Any:
        built.append(kind)
        return original(kind, raw)

    monkeypatch.setattr(values, "build_argument", counted)
    policy = Policy()
    rehearse(policy)
    first = list(built)
    rehearse(policy)
    assert first and built == first * 2
