"""When the zygote forks a spare (never beside a long job, a distribution check's), and what the
host tells it of each job for that.

A spare forked while a Submit's check job ran slowed it down, even once the learner's job had
left the other core free (their pair took 26 ms against 22 ms without it); beside a Run's
few-millisecond jobs, forking at once is what keeps a spare ready for the next grade.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from sandbox import Job, Limits, Pool, framing, protocol
from sandbox.attempts import Attempt, spare_wanted
from sandbox.job import RandomMode
from sandbox.protocol import RunOrder


def attempt(long: bool = False) -> Attempt:
    spare: Any = None  # the rule reads only what the host said of the job
    return Attempt(job_id=1, spare=spare, first_case=0, cases=1, assigned=0.0, long=long)


def test_an_idle_zygote_forks_its_spares() -> None:
    assert spare_wanted([], spares=0)
    assert spare_wanted([], spares=1)


def test_no_fork_while_a_child_runs_and_a_spare_waits() -> None:
    assert not spare_wanted([attempt()], spares=1)
    assert not spare_wanted([attempt(long=True)], spares=1)


def test_short_jobs_get_a_spare_forked_beside_them() -> None:
    assert spare_wanted([attempt()], spares=0)
    assert spare_wanted([attempt(), attempt()], spares=0)


@pytest.mark.parametrize("slots", [[True], [True, False], [False, True], [True, True]])
def test_no_spare_is_forked_beside_a_long_job(slots: list[bool]) -> None:
    # Not even with a slot free: the fork and the rehearsal slowed the check from the other
    # core too.
    assert not spare_wanted([attempt(long=long) for long in slots], spares=0)


def _run_orders(pool: Pool, jobs: list[Job], monkeypatch: pytest.MonkeyPatch) -> list[RunOrder]:
    """The run orders the pool writes to its zygote for ``jobs`` (caught, not sent)."""
    sent: list[bytes] = []
    monkeypatch.setattr(pool, "_write", sent.append)
    pool.submit_all(jobs)
    monkeypatch.undo()
    orders = [protocol.parse_order(framing.split_body(frame[4:])[0]) for frame in sent]
    return [order for order in orders if isinstance(order, RunOrder)]


STEP = Job(
    code="def f(x):\n    return x\n",
    entry_point="f",
    cases=({"x": 1},),
    parameters={"x": "value"},
    limits=Limits(),
)


def test_the_pool_tells_the_zygote_which_jobs_are_long(monkeypatch: pytest.MonkeyPatch) -> None:
    driven = replace(STEP, driver="def drive(step, Generator, x):\n    return 1\n")
    with Pool(workers=1) as pool:
        runs = _run_orders(pool, [STEP, driven], monkeypatch)
        assert [order.long for order in runs] == [False, True]
        pool.submit_all([STEP])[0].result(timeout=10)  # and it still runs its jobs


def test_the_pool_tells_the_zygote_which_jobs_draw_from_a_generator(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The zygote never reads a job's document; the order says whether its draws come from a
    # generator argument, and the spares forked after it rehearse that path (sandbox/rehearsal.py).
    legacy = replace(STEP, random_mode=RandomMode.global_state)
    drawing = replace(
        STEP,
        code="def f(x, rng):\n    return rng.random()\n",
        cases=({"x": 1, "rng": {"seed": 3}},),
        parameters={"x": "value", "rng": "rng"},
        random_mode=RandomMode.generator,
        rng_argument="rng",
    )
    with Pool(workers=1) as pool:
        runs = _run_orders(pool, [legacy, drawing], monkeypatch)
        assert [order.generator for order in runs] == [False, True]
        results = pool.submit_all([legacy, drawing])  # and the spares after either run them
        outcomes = [result.result(timeout=10).cases[0].outcome.value for result in results]
        assert outcomes == ["returned", "returned"]
