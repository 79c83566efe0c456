"""Faults that are not the learner's: a child killed by something other than the judge's own
limits (the kernel's OOM killer, an operator's signal) runs its cases again once, and a second
such kill is no verdict at all but SandboxUnavailable (the API's 503 with Retry-After). A spare
killed while it waits is never handed a job, and a dead zygote is replaced off the caller's
thread. Real processes, found in /proc and killed for real."""

from __future__ import annotations

import os
import signal
import time

import pytest

from sandbox import Job, Limits, Outcome, Pool, SandboxUnavailable
from tests.procfs import stat_fields

SPIN = "def f(x):\n    total = 0\n    for i in range(x):\n        total += i\n    return total\n"
TURNS = 3_000_000  # about a second of a confined child's CPU: long enough to be found and killed


def spin_job() -> Job:
    return Job(
        code=SPIN,
        entry_point="f",
        cases=({"x": 3}, {"x": TURNS}),
        parameters={"x": "value"},
        limits=Limits(time_ms=20_000),
    )


def quick_job(x: int) -> Job:
    return Job(
        code=SPIN, entry_point="f", cases=({"x": x},), parameters={"x": "value"}, limits=Limits()
    )


def cpu_ticks(table: dict[int, list[str]], pid: int) -> int:
    return int(table[pid][11]) + int(table[pid][12])


def busy_child(zygote: int, not_pid: int | None = None, timeout: float = 20) -> int:
    """The zygote's child that is spending CPU (the job's; spares wait asleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = stat_fields()
        time.sleep(0.2)
        after = stat_fields()
        grown = {
            pid: cpu_ticks(after, pid) - cpu_ticks(before, pid)
            for pid, fields in after.items()
            if int(fields[1]) == zygote and pid in before and pid != not_pid
        }
        if grown and max(grown.values()) >= 5:  # 50 ms of the last 200 ms at least
            return max(grown, key=lambda pid: grown[pid])
    raise AssertionError("no child of the zygote ran the job")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_child_killed_from_outside_runs_its_cases_again(sig: signal.Signals) -> None:
    with Pool(workers=1) as pool:
        future = pool.submit(spin_job())
        os.kill(busy_child(pool.status()["zygote_pid"]), sig)
        result = future.result(timeout=60)
    assert result.setup is None
    assert [case.outcome for case in result.cases] == [Outcome.returned] * 2
    assert result.cases[1].value == {"t": "int", "v": TURNS * (TURNS - 1) // 2}
    assert result.cases[0].value == {"t": "int", "v": 3}  # reported before the kill: kept


def test_a_second_kill_from_outside_is_no_verdict_but_sandbox_unavailable() -> None:
    with Pool(workers=1) as pool:
        future = pool.submit(spin_job())
        zygote = pool.status()["zygote_pid"]
        first = busy_child(zygote)
        os.kill(first, signal.SIGKILL)
        os.kill(busy_child(zygote, not_pid=first), signal.SIGKILL)
        with pytest.raises(SandboxUnavailable, match="killed from outside"):
            future.result(timeout=60)
        # The pool itself is fine: the next job runs as ever.
        quick = quick_job(4)
        assert pool.run(quick, timeout=30).cases[0].value == {"t": "int", "v": 6}
        assert pool.status()["restarts"] == 0


def test_spares_killed_while_they_wait_are_never_handed_a_job() -> None:
    quick = quick_job(5)
    with Pool(workers=2) as pool:
        pool.run(quick, timeout=30)  # the zygote now forks spares with these limits
        zygote = pool.status()["zygote_pid"]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # The zygote's living children: its spares, and perhaps the first job's child,
            # which exits by itself and is reaped a moment later (then not ours to kill).
            spares = [
                pid for pid, f in stat_fields().items() if int(f[1]) == zygote and f[0] != "Z"
            ]
            if len(spares) >= 2:
                break
            time.sleep(0.05)
        assert spares, "the zygote forked no spare"
        for pid in spares:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # the first job's child, reaped since it was listed
        # Until it has exited, a killed spare is only dying (tearing its memory down takes a
        # few ms, longer on a busy machine): a job handed to it then is a foreign kill, run
        # again once (test_a_child_killed_from_outside_runs_its_cases_again). Dead ones are
        # never taken.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            table = stat_fields()
            if all(pid not in table or table[pid][0] == "Z" for pid in spares):
                break
            time.sleep(0.01)
        results = [pool.run(quick, timeout=30) for _ in range(3)]
    for result in results:
        assert result.setup is None
        assert result.cases[0].value == {"t": "int", "v": 10}


def test_a_dead_zygote_is_replaced_while_submissions_are_refused_at_once() -> None:
    quick = quick_job(6)
    with Pool(workers=1) as pool:
        zygote = pool.status()["zygote_pid"]
        os.kill(zygote, signal.SIGKILL)
        refused = 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                future = pool.submit(quick)
            except SandboxUnavailable:
                refused += 1  # a new zygote is starting elsewhere: this caller did not wait
                time.sleep(0.01)
                continue
            try:
                result = future.result(timeout=30)
            except SandboxUnavailable:
                continue  # submitted in the instant before the old zygote was seen dead
            break
        else:
            raise AssertionError("the zygote was never replaced")
        assert refused >= 1
        assert result.cases[0].value == {"t": "int", "v": 15}
        status = pool.status()
        assert status["restarts"] == 1 and status["zygote_pid"] != zygote
