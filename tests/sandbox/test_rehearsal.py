"""The spares' rehearsal job really walks the harness paths the exercises' jobs take, without
errors.

A rehearsal whose code failed early would pre-pay nothing, and its result is never reported
anywhere, so this is where such a regression shows. (A second rehearsal job for the generator
path was once tried and dropped: it cost about 15% of the throughput for no latency gain. A
spare now rehearses one job of two, the one shaped like the zygote's last job.)
"""

from __future__ import annotations

from typing import Any

import pytest

from sandbox import protocol, values
from sandbox.child import run_job
from sandbox.job import Job, RandomMode
from sandbox.policy import Policy
from sandbox.rehearsal import REHEARSAL_HELPERS_JOB, REHEARSAL_JOB, rehearse


class Recorder:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    def send(self, message: protocol.Reply) -> None:
        self.messages.append(protocol.reply_document(message))

    def start_case(self, index: int) -> None:
        pass


def _rehearsed(job: Job) -> list[dict[str, Any]]:
    recorder = Recorder()
    run_job(job, recorder, Policy(), 0)  # type: ignore[arg-type]
    kinds = [message["t"] for message in recorder.messages]
    assert kinds == ["ready", *["case"] * len(job.cases), "end"]
    cases = [message for message in recorder.messages if message["t"] == "case"]
    assert all(case["outcome"] == "returned" and case["error"] is None for case in cases), cases
    return cases


def test_the_plain_rehearsal_job_compiles_and_returns_on_every_case() -> None:
    for case in _rehearsed(REHEARSAL_JOB):
        assert case["value"]["t"] == "tuple" and case["output"]  # it printed, too
    assert REHEARSAL_JOB.random_mode is RandomMode.global_state


def test_the_rehearsal_with_helpers_walks_arrays_generators_and_helpers() -> None:
    # A step that used its helper, drew from each kind of generator (the helper's draw last),
    # returned a numpy number among plain ones, and left its arrays as built.
    for case in _rehearsed(REHEARSAL_HELPERS_JOB):
        tokens, length, number = case["value"]["v"]
        assert tokens["t"] == "list" and length["v"] == len(tokens["v"])
        assert number == {"t": "numpy", "dtype": "float64", "v": 0.25}
        assert case["draws"] >= 2 and case["inputs_after"] == {}
    specs = [case["rng"] for case in REHEARSAL_HELPERS_JOB.cases]
    assert {next(iter(spec)) for spec in specs} == {"seed", "scripted"}
    kinds_used = set(REHEARSAL_HELPERS_JOB.parameters.values())
    assert kinds_used == {"list", "ndarray", "value", "rng"}
    assert REHEARSAL_HELPERS_JOB.helpers and REHEARSAL_HELPERS_JOB.rng_argument == "rng"


@pytest.fixture
def built(monkeypatch: Any) -> list[str]:
    """The kind of every argument the harness builds from here on, in order."""
    kinds: list[str] = []
    original = values.build_argument

    def counted(kind: str, raw: Any) -> Any:
        kinds.append(kind)
        return original(kind, raw)

    monkeypatch.setattr(values, "build_argument", counted)
    return kinds


def test_rehearse_runs_from_the_job_document_and_twice_alike(built: list[str]) -> None:
    # A spare rehearses once; the zygote's warm-up before it: both must run the whole job.
    policy = Policy()
    rehearse(policy)
    first = list(built)
    rehearse(policy)
    assert first and built == first * 2
    built.clear()
    rehearse(policy, with_helpers=True)
    assert built == [*REHEARSAL_HELPERS_JOB.parameters.values()] * len(REHEARSAL_HELPERS_JOB.cases)


def test_a_spare_stops_rehearsing_when_its_job_arrives(built: list[str]) -> None:
    import os

    policy = Policy()
    job_read, job_write = os.pipe()
    try:
        rehearse(policy, job_read)  # nothing to read: the whole rehearsal
        whole = len(built)
        assert whole > 0
        os.write(job_write, b"job")
        built.clear()
        rehearse(policy, job_read)  # a job waits: it stops before building anything
        assert built == []
        assert os.read(job_read, 16) == b"job"  # and leaves the job to be read
    finally:
        os.close(job_read)
        os.close(job_write)


def test_a_spare_hands_its_job_the_legacy_global_state_the_zygote_left() -> None:
    # A generator-mode job never seeds numpy's legacy state; a learner drawing from it must get
    # the same numbers whichever rehearsal the spare ran, and wherever that stopped.
    import os

    import numpy as np

    policy = Policy()
    rehearse(policy)  # as the zygote's warm-up ends
    after_warm_up = np.random.random(3)
    job_read, job_write = os.pipe()
    try:
        for with_helpers in (False, True):
            rehearse(policy)
            rehearse(policy, job_read, with_helpers)
            assert np.array_equal(np.random.random(3), after_warm_up)
        os.write(job_write, b"job")  # a job waits: the rehearsal stops at once
        rehearse(policy)
        rehearse(policy, job_read, True)
        assert np.array_equal(np.random.random(3), after_warm_up)
    finally:
        os.close(job_read)
        os.close(job_write)


def test_the_plain_rehearsal_compiles_what_a_beam_step_is_made_of() -> None:
    # Each construct is there to be compiled and guarded once before the real job: pairs
    # unpacked as they are iterated, a generator expression, a lambda and a comprehension.
    import ast

    tree = ast.parse(REHEARSAL_JOB.code)
    kinds = {type(node) for node in ast.walk(tree)}
    assert {ast.GeneratorExp, ast.Lambda, ast.ListComp} <= kinds
    targets = [node.target for node in ast.walk(tree) if isinstance(node, ast.comprehension)]
    assert any(isinstance(target, ast.Tuple) for target in targets)
