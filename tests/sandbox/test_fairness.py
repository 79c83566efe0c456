"""Fair under load: one time budget per submission, and short work never waits behind long.

Behaviour only (verdicts, the lane each job ran in, the order jobs complete in), never a
duration: the machine these run on is shared.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge
from app.schemas import Status, Verdict
from sandbox import Job, Limits, Outcome, Pool, RunResult
from tests.procfs import stat_fields
from tests.sandbox.hostile import HONEST, SIGNATURE

EXERCISE = Catalog.load().get("speculative-decoding-verify")
assert EXERCISE is not None
SECOND_TOKENS = EXERCISE.cases[1].input["draft_tokens"]
BUDGET = Limits(time_ms=500, memory_mb=128)


def on_second_case(body: str) -> str:
    """An honest submission that does ``body`` on the exercise's second case only."""
    return (
        "import numpy as np\n"
        + HONEST
        + f"\n\n{SIGNATURE}\n    if draft_tokens == {SECOND_TOKENS!r}:\n        {body}\n"
        + "    return honest(draft_probs, target_probs, draft_tokens)\n"
    )


def job(code: str, cases: int = 6, limits: Limits = BUDGET) -> Job:
    return Job(
        code=code,
        entry_point="f",
        cases=tuple({"x": index} for index in range(1, cases + 1)),
        parameters={"x": "value"},
        limits=limits,
    )


SPIN_ON_2 = "def f(x):\n    while x == 2:\n        pass\n    return x\n"
SPIN = "def f(x):\n    while True:\n        pass\n"
CORRECT = "def f(x):\n    return x * 2\n"


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    active = Judge.create(workers=2, queue_size=4)
    try:
        yield active
    finally:
        active.close()


@pytest.fixture(scope="module")
def pool() -> Iterator[Pool]:
    with Pool(workers=2, queue_size=4, slow_lane=4) as active:
        yield active


def test_a_hanging_second_case_spends_the_budget_and_the_rest_say_why(judge: Judge) -> None:
    report = judge.grade(EXERCISE, on_second_case("while True:\n            pass"))
    first, second, *rest = report.tests
    assert first.status == Status.passed
    assert second.status == Status.error
    assert "time limit exceeded" in (second.message or "")
    assert report.verdict == Verdict.time_limit_exceeded
    assert report.passed == 1 and len(rest) == 4
    for test in rest:
        assert test.status == Status.error
        assert test.actual is None
        message = test.message or ""
        assert message.startswith("not run"), message
        assert f'case "{second.name}"' in message, message  # names the case that spent it
        assert f"{EXERCISE.limits.time_ms} ms" in message


def test_the_budget_is_shared_by_all_the_cases_not_given_to_each(pool: Pool) -> None:
    # Each case spins for ~45% of the budget: no case alone is over it, the six together are
    # (270%). CPU time per step varies up to twofold on a shared two-core machine (the other
    # hyperthread busy or not), so between one and four cases fit; never six.
    work = _spin_work_for(pool, BUDGET.time_ms * 0.45)
    spins = f"def f(x):\n    n = 0\n    while n < {work}:\n        n += 1\n    return x\n"
    result = pool.run(job(spins), timeout=60)
    outcomes = [case.outcome for case in result.cases]
    assert Outcome.timeout in outcomes, outcomes
    spent = outcomes.index(Outcome.timeout)
    assert 1 <= spent <= 4, outcomes  # some cases fit in one budget, never six
    assert outcomes[:spent] == [Outcome.returned] * spent
    assert outcomes[spent + 1 :] == [Outcome.not_run] * (len(outcomes) - spent - 1)


def _spin_work_for(pool: Pool, cpu_ms: float) -> int:
    """How many loop steps a confined child does in about ``cpu_ms`` of CPU, measured by the
    CPU the pool accounts (the budget's own clock) on a job of the same shape: six cases of a
    long loop, so a child's set-up is a small part of what is measured."""
    steps = 300_000
    spins = f"def f(x):\n    n = 0\n    while n < {steps}:\n        n += 1\n    return x\n"
    result = pool.run(job(spins, limits=Limits(time_ms=20_000)), timeout=90)
    assert [case.outcome for case in result.cases] == [Outcome.returned] * 6
    per_step = max(result.cpu_ms, 1.0) / (6 * steps)
    return int(cpu_ms / per_step)


def running_children(zygote: int, min_ticks: int) -> list[int]:
    """The zygote's runnable children that have used at least ``min_ticks`` of CPU: a spinner,
    not a spare, which sleeps waiting for a job once it has rehearsed (a rehearsal on a busy
    machine can cost a few ticks: stopping that spare instead left the spinner running)."""
    return [
        pid
        for pid, fields in stat_fields().items()
        if int(fields[1]) == zygote
        and fields[0] == "R"
        and int(fields[11]) + int(fields[12]) >= min_ticks
    ]


def test_a_child_that_gets_no_cpu_is_stopped_by_the_wall_clock_backstop(pool: Pool) -> None:
    # A stopped child is the purest sleeper: it spends no CPU at all. Only the wall clock
    # can end it, and its verdict is the same as a spinner's.
    zygote = pool.status()["zygote_pid"]
    # The earlier tests' spinners may still be running out their budgets: stopping one of them
    # instead of this job's child left the spinner to spend its whole CPU budget.
    deadline = time.monotonic() + 30
    while pool.status()["in_flight"] or running_children(zygote, min_ticks=1):
        assert time.monotonic() < deadline, "the pool never went quiet"
        time.sleep(0.02)
    future = pool.submit(job(SPIN_ON_2))
    stopped: list[int] = []
    while not future.done() and not stopped:
        for pid in running_children(zygote, min_ticks=10):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
        time.sleep(0.005)
    result = future.result(timeout=30)
    assert stopped, "the spinning child was never seen"
    outcomes = [case.outcome for case in result.cases]
    assert outcomes == [Outcome.returned, Outcome.timeout] + [Outcome.not_run] * 4, result
    # Not the CPU budget: the backstop ended it.
    assert result.cpu_ms < BUDGET.time_ms, (stopped, result)
    # Killed: the verdict is sent at once and the child reaped later (zygote.finish), so on a
    # busy machine its exit may still be under way; a child left stopped would stay so.
    deadline = time.monotonic() + 10
    while not all(_zombie_or_gone(pid) for pid in stopped):
        assert time.monotonic() < deadline, [stat_fields().get(pid) for pid in stopped]
        time.sleep(0.02)


def _zombie_or_gone(pid: int) -> bool:
    fields = stat_fields().get(pid)
    return fields is None or fields[0] in "ZX"


def completion_order(futures: dict[str, Future[RunResult]]) -> list[str]:
    order: list[str] = []
    lock = threading.Lock()

    def note(name: str) -> None:
        with lock:
            order.append(name)

    for name, future in futures.items():
        future.add_done_callback(lambda _, name=name: note(name))
    for future in futures.values():
        future.result(timeout=60)
    return order


@pytest.mark.parametrize("hanging", [2, 4], ids=["as many as the fast slots", "twice as many"])
def test_a_correct_submission_completes_before_the_hanging_jobs_ahead_of_it(
    pool: Pool, hanging: int
) -> None:
    futures = {f"hanging {i}": pool.submit(job(SPIN)) for i in range(hanging)}
    futures["correct"] = pool.submit(job(CORRECT))
    order = completion_order(futures)
    assert order[0] == "correct", order
    results = {name: future.result() for name, future in futures.items()}
    assert [case.value["v"] for case in results["correct"].cases] == [2, 4, 6, 8, 10, 12]
    assert not results["correct"].demoted  # it ran in a fast slot
    for name, result in results.items():
        if name != "correct":
            assert result.demoted, name  # it left its fast slot for the slow lane
            assert result.cases[0].outcome == Outcome.timeout
            assert [case.outcome for case in result.cases[1:]] == [Outcome.not_run] * 5


def test_the_lanes_show_what_is_in_use_and_their_bounds(pool: Pool) -> None:
    idle = pool.lanes()
    assert idle["fast"] == {"in_use": 0, "capacity": 2}
    assert idle["slow"]["capacity"] == 4 and idle["slow"]["in_use"] == 0
    assert idle["queue"] == {"in_use": 0, "capacity": 4}
    future = pool.submit(job(SPIN))
    while not future.done() and pool.lanes()["slow"]["in_use"] == 0:
        time.sleep(0.01)
    busy = pool.lanes()
    future.result(timeout=30)
    assert busy["slow"]["in_use"] == 1 and busy["fast"]["in_use"] == 0
    # at most four parked children, each with the largest address space a job was given
    assert busy["slow"]["memory_mb_bound"] == 4 * max(BUDGET.memory_mb, Limits().memory_mb)
    assert pool.lanes()["slow"]["in_use"] == 0


def test_a_full_slow_lane_makes_room_so_spinners_never_keep_the_fast_slots() -> None:
    # Red team: with the slow lane full, the next spinners kept both fast slots for
    # their whole budget and correct work queued behind them. Now the parked job nearest its
    # backstop is stopped, and the spinner moves out of the fast slot.
    with Pool(workers=1, queue_size=8, slow_lane=1) as small:
        futures = {f"hanging {i}": small.submit(job(SPIN)) for i in range(3)}
        futures["correct"] = small.submit(job(CORRECT))
        order = completion_order(futures)
        results = {name: future.result() for name, future in futures.items()}
    assert order.index("correct") < order.index("hanging 2"), order
    assert not results["correct"].demoted
    assert [case.value["v"] for case in results["correct"].cases] == [2, 4, 6, 8, 10, 12]
    for name, result in results.items():
        if name != "correct":
            assert result.cases[0].outcome == Outcome.timeout, name
            assert result.demoted, name  # none kept the fast slot for its whole budget
