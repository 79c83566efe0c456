"""A job's trusted trace and driver run in the child; draws handed out are recorded and checked."""

from __future__ import annotations

import pytest

from app.grading.judge import Judge
from sandbox import Job, Limits, Outcome, RandomMode
from sandbox.framing import ProtocolError
from sandbox.protocol import parse_reply
from sandbox.values import RECORDED_DRAWS, CountingGenerator, ScriptedGenerator, json_data

STEP = "def step(xs, rng):\n    return [x + rng.random() for x in xs]\n"
TRACE = (
    "import numpy as np\n"
    "def trace(xs, rng):\n"
    "    return [{'x': x, 'u': rng.random(), 'n': np.int64(len(xs))} for x in xs]\n"
)
DRIVER = (
    "def drive(step, Generator, xs, rng):\n"
    "    g = Generator(3)\n"
    "    return [len(step(xs, g)) for _ in range(4)] + [g.draws]\n"
)


def _job(**extra: str) -> Job:
    return Job(
        code=STEP,
        entry_point="step",
        cases=({"xs": [1, 2], "rng": {"scripted": [0.5, 0.25, 0.75]}},),
        parameters={"xs": "list", "rng": "rng"},
        limits=Limits(),
        random_mode=RandomMode.generator,
        rng_argument="rng",
        **extra,
    )


def test_the_trace_runs_on_fresh_arguments_after_the_entry_point(judge: Judge) -> None:
    run = judge.pool.submit(_job(trace=TRACE)).result(timeout=30).cases[0]
    assert run.outcome is Outcome.returned
    assert run.draws == 2 and run.drawn == (0.5, 0.25)
    # The trace's own generator starts again from the case's first number.
    assert run.trace == [{"x": 1, "u": 0.5, "n": 2}, {"x": 2, "u": 0.25, "n": 2}]


def test_without_a_trace_nothing_is_traced(judge: Judge) -> None:
    run = judge.pool.submit(_job()).result(timeout=30).cases[0]
    assert run.trace is None and run.drawn == (0.5, 0.25)


def test_a_failing_trace_costs_only_the_trace(judge: Judge) -> None:
    broken = "def trace(xs, rng):\n    return [1 / 0]\n"
    run = judge.pool.submit(_job(trace=broken)).result(timeout=30).cases[0]
    assert run.outcome is Outcome.returned
    assert run.trace == {"trace_error": "ZeroDivisionError: division by zero"}


def test_a_driver_runs_the_step_in_place_of_the_entry_point(judge: Judge) -> None:
    run = judge.pool.submit(_job(driver=DRIVER)).result(timeout=30).cases[0]
    assert run.outcome is Outcome.returned
    assert run.value["t"] == "list"
    assert [item["v"] for item in run.value["v"]] == [2, 2, 2, 2, 8]


def test_generators_record_what_they_handed_out() -> None:
    scripted = ScriptedGenerator([0.5, 0.25, 0.125])
    scripted.uniform(2.0, 4.0)
    scripted.random(size=2)
    assert scripted.drawn_values == [3.0, 0.25, 0.125]
    counting = CountingGenerator(5)
    counting.random(size=RECORDED_DRAWS + 10)
    assert counting.draws == RECORDED_DRAWS + 10
    assert len(counting.drawn_values) == RECORDED_DRAWS


def test_infinite_draws_are_recorded_as_unknown() -> None:
    scripted = ScriptedGenerator([0.5])
    assert scripted.uniform(0, float("inf")) == float("inf")
    assert scripted.drawn_values == [None]  # JSON has no infinity


@pytest.mark.parametrize(
    "drawn", [[0.5] * (RECORDED_DRAWS + 1), "0.5", [True], ["x"], [float("nan")], {"a": 1}]
)
def test_the_host_refuses_malformed_draw_records(drawn: object) -> None:
    with pytest.raises(ProtocolError, match="drawn"):
        parse_reply({"t": "case", "case": 0, "outcome": "returned", "drawn": drawn}, 100)


@pytest.mark.parametrize("duration", [float("nan"), float("inf"), -1.0, True, "1"])
def test_the_host_refuses_a_case_duration_that_is_not_a_time(duration: object) -> None:
    with pytest.raises(ProtocolError, match="duration_ms"):
        parse_reply({"t": "case", "case": 0, "outcome": "returned", "duration_ms": duration}, 100)


def test_trace_data_is_plain_json() -> None:
    import numpy as np

    assert json_data({"a": (np.float64(0.5), np.int32(2)), "b": np.array([1.0])}) == {
        "a": [0.5, 2],
        "b": [1.0],
    }
    with pytest.raises(TypeError):
        json_data({"a": object()})
