"""When the zygote forks a spare: never beside a long job that keeps every core busy.

A spare forked while both fast slots ran a Submit's check and learner jobs shared a core with
them for their whole run (34 ms against 27 ms without it, `python -m bench submit`); beside a
Run's few-millisecond jobs, forking at once is what keeps a spare ready for the next grade.
"""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.zygote import Attempt, spare_wanted


def attempt(long: bool = False) -> Attempt:
    spare: Any = None  # the rule reads only what the host said of the job
    return Attempt(job_id=1, spare=spare, first_case=0, cases=1, assigned=0.0, long=long)


def test_an_idle_zygote_forks_its_spares() -> None:
    assert spare_wanted([], spares=0, workers=2)
    assert spare_wanted([], spares=1, workers=2)


def test_no_fork_while_a_child_runs_and_a_spare_waits() -> None:
    assert not spare_wanted([attempt()], spares=1, workers=2)
    assert not spare_wanted([attempt(long=True)], spares=1, workers=2)


def test_short_jobs_in_every_slot_get_a_spare_forked_beside_them() -> None:
    assert spare_wanted([attempt(), attempt()], spares=0, workers=2)


@pytest.mark.parametrize("slots", [[True, False], [False, True], [True, True]])
def test_a_long_job_in_a_full_set_of_slots_waits_for_a_slot_to_free(slots: list[bool]) -> None:
    busy = [attempt(long=long) for long in slots]
    assert not spare_wanted(busy, spares=0, workers=2)
    assert spare_wanted(busy[:1], spares=0, workers=2)  # one slot free: its core forks it


def test_the_pool_tells_the_zygote_which_jobs_are_long(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox import Job, Limits, Pool, protocol

    step = Job(
        code="def f(x):\n    return x\n",
        entry_point="f",
        cases=({"x": 1},),
        parameters={"x": "value"},
        limits=Limits(),
    )
    driven = Job(**{**step.__dict__, "driver": "def drive(step, Generator, x):\n    return 1\n"})
    with Pool(workers=1) as pool:
        sent: list[bytes] = []
        monkeypatch.setattr(pool, "_write", sent.append)
        pool.submit_all([step, driven])
        runs = [protocol.split_body(frame[protocol.HEADER.size :])[0] for frame in sent]
        runs = [header for header in runs if header.get("op") == "run"]
        assert [header["long"] for header in runs] == [False, True]
        monkeypatch.undo()
        pool.submit_all([step])[0].result(timeout=10)  # and it still runs its jobs
