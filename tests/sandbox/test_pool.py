"""The host side of the boundary: one verdict per case, bounded queue, nothing left behind."""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from sandbox import Job, Limits, Pool, PoolSaturated, SandboxUnavailable
from tests.procfs import stat_fields

FAST = Limits(time_ms=400, memory_mb=128)


def spinning_job(time_ms: int) -> Job:
    """A job whose only case never returns."""
    return Job(
        code="def f(x):\n    while True:\n        pass\n",
        entry_point="f",
        cases=({"x": 1},),
        parameters={"x": "value"},
        limits=Limits(time_ms=time_ms),
    )


def children_of(pid: int) -> list[int]:
    return [child for child, fields in stat_fields().items() if int(fields[1]) == pid]


@pytest.fixture(scope="module")
def pool():
    with Pool(workers=2, queue_size=4) as active:
        yield active


def run(pool: Pool, code: str, inputs: list[object], limits: Limits = FAST):
    job = Job(
        code=code,
        entry_point="f",
        cases=tuple({"x": value} for value in inputs),
        parameters={"x": "value"},
        limits=limits,
    )
    return pool.run(job, timeout=30)


def test_values_come_back_tagged_with_exact_types(pool: Pool) -> None:
    code = (
        "import numpy as np\ndef f(x):\n    return (x, [x * 2], np.int64(x), np.array([x, 0.5]))\n"
    )
    result = run(pool, code, [3])
    assert result.setup is None
    (case,) = result.cases
    assert case.outcome == "returned"
    assert case.value["t"] == "tuple"
    int_tag, list_tag, numpy_tag, array_tag = case.value["v"]
    assert int_tag == {"t": "int", "v": 3}
    assert list_tag == {"t": "list", "v": [{"t": "int", "v": 6}]}
    assert numpy_tag == {"t": "numpy", "dtype": "int64", "v": 3}
    assert array_tag["t"] == "ndarray" and array_tag["v"] == [3.0, 0.5]


def test_a_hanging_case_spends_the_budget_and_the_later_cases_do_not_run(pool: Pool) -> None:
    code = "def f(x):\n    while x == 3:\n        pass\n    return x\n"
    result = run(pool, code, [1, 2, 3, 4, 5])
    outcomes = [case.outcome for case in result.cases]
    assert outcomes == ["returned", "returned", "timeout", "not_run", "not_run"]
    assert [case.value["v"] for case in result.cases[:2]] == [1, 2]
    assert all(case.value is None for case in result.cases[2:])


def test_exit_style_exceptions_never_escape_the_harness(pool: Pool) -> None:
    code = (
        "def f(x):\n"
        "    if x == 1:\n        raise SystemExit(0)\n"
        "    if x == 2:\n        raise KeyboardInterrupt\n"
        "    if x == 3:\n        raise StopIteration\n"
        "    return x\n"
    )
    result = run(pool, code, [1, 2, 3, 4])
    assert [case.outcome for case in result.cases] == ["raised", "raised", "raised", "returned"]
    assert result.cases[0].error.type == "SystemExit"
    assert result.cases[1].error.type == "KeyboardInterrupt"


def test_memory_exhaustion_is_its_own_outcome(pool: Pool) -> None:
    code = "def f(x):\n    if x:\n        return [0] * (10 ** 9)\n    return 1\n"
    result = run(pool, code, [0, 1, 0])
    assert [case.outcome for case in result.cases] == ["returned", "memory", "returned"]


def test_printing_past_the_cap_is_an_output_limit_even_if_caught(pool: Pool) -> None:
    code = (
        "def f(x):\n"
        "    for i in range(10 ** 6):\n"
        "        try:\n            print('spam' * 100)\n"
        "        except Exception:\n            pass\n"
        "    return x\n"
    )
    result = run(pool, code, [1])
    (case,) = result.cases
    assert case.outcome == "output"
    assert case.output_truncated
    assert len(case.output) <= FAST.output_bytes


def test_compile_errors_report_the_learners_line(pool: Pool) -> None:
    result = run(pool, "def f(x):\n    return x\n\ndef g(:\n    pass\n", [1])
    assert result.setup is not None and result.setup.kind == "compile"
    assert result.setup.line == 4
    assert result.cases == []


def test_policy_refusals_are_reported_as_such(pool: Pool) -> None:
    result = run(pool, "def f(x):\n    return x.__class__\n", [1])
    assert result.setup is not None and result.setup.kind == "refused"
    assert "__class__" in result.setup.message


def test_a_missing_entry_point_is_reported_as_data(pool: Pool) -> None:
    result = run(pool, "def g(x):\n    return x\n", [1])
    assert result.setup.kind == "missing_entry" and result.setup.found is None
    # The host words it (app/grading/reports.py): the sandbox sends what it found, not a sentence.
    result = run(pool, "f = 3\n", [1])
    assert result.setup.kind == "missing_entry" and result.setup.found == "int"
    assert result.setup.message == ""


def test_the_same_source_twice_gives_the_same_result(pool: Pool) -> None:
    code = "def f(x):\n    total = [0]\n    total[0] += x\n    return f'{total}'\n"
    runs = [run(pool, code, [1, 2]) for _ in range(3)]  # the third from the compile cache
    assert all([c.value for c in r.cases] == [c.value for c in runs[0].cases] for r in runs)
    assert runs[2].cases[1].value == {"t": "str", "v": "[2]"}


def process_state(pid: int) -> str:
    return stat_fields()[pid][0]


def test_no_child_outlives_its_verdict(pool: Pool) -> None:
    run(pool, "def f(x):\n    while True:\n        pass\n", [1])
    zygote = pool.status()["zygote_pid"]
    # What remains are the idle, confined spares (one per worker) blocked waiting for work;
    # the child that spun is gone.
    # (A child killed as its verdict was sent may take a moment to be torn down and reaped.)
    deadline = time.monotonic() + 2
    while len(children := children_of(zygote)) > pool.workers and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(children) <= pool.workers
    assert all(process_state(pid) == "S" for pid in children)


def test_a_full_queue_refuses_at_once() -> None:
    with Pool(workers=1, queue_size=0) as small:
        slow = spinning_job(500)
        first = small.submit(slow)
        started = time.monotonic()
        with pytest.raises(PoolSaturated):
            small.submit(slow)
        assert time.monotonic() - started < 0.1
        assert first.result(timeout=10).cases[0].outcome == "timeout"


def test_jobs_that_belong_together_are_admitted_all_or_none() -> None:
    with Pool(workers=1, queue_size=1, slow_lane=0) as small:
        first = small.submit(spinning_job(500))
        with pytest.raises(PoolSaturated):
            small.submit_all([spinning_job(500), spinning_job(500)])  # room for one only
        lanes = small.lanes()
        assert (lanes["fast"]["in_use"], lanes["queue"]["in_use"]) == (1, 0)  # none left behind
        together = small.submit_all([spinning_job(500)])
        assert first.result(timeout=10).cases[0].outcome == "timeout"
        assert together[0].result(timeout=10).cases[0].outcome == "timeout"
        # A group larger than the whole bound could never be admitted: an idle pool takes it.
        group = small.submit_all([spinning_job(200) for _ in range(3)])
        assert [f.result(timeout=10).cases[0].outcome for f in group] == ["timeout"] * 3


def test_a_dead_zygote_fails_pending_work_and_is_replaced() -> None:
    with Pool(workers=1, queue_size=2) as pool:
        job = spinning_job(5000)
        pending = pool.submit(job)
        zygote = pool.status()["zygote_pid"]
        time.sleep(0.2)
        os.kill(zygote, 9)
        with pytest.raises(SandboxUnavailable):
            pending.result(timeout=10)
        deadline = time.monotonic() + 30  # a new zygote starts on a thread of its own
        while pool.status()["zygote_pid"] in (None, zygote) and time.monotonic() < deadline:
            time.sleep(0.05)
        result = run(pool, "def f(x):\n    return x\n", [7])
        assert result.cases[0].value == {"t": "int", "v": 7}
        assert pool.status()["restarts"] == 1


def test_close_leaves_no_process_behind() -> None:
    pool = Pool(workers=2, queue_size=2)
    zygote = pool.status()["zygote_pid"]
    pending = pool.submit(spinning_job(10_000))
    time.sleep(0.3)
    pool.close()
    with pytest.raises(SandboxUnavailable):
        pending.result(timeout=5)
    assert not Path(f"/proc/{zygote}").exists()
    pool.close()  # idempotent


HELPERS = "def double(x):\n    return 2 * x\n\ndef broken(x):\n    return x / 0\n"


def run_with_helpers(pool: Pool, code: str, helpers: str = HELPERS):
    job = Job(
        code=code,
        entry_point="f",
        cases=({"x": 1}, {"x": 2}),
        parameters={"x": "value"},
        limits=FAST,
        helpers=helpers,
    )
    return pool.run(job, timeout=30)


def test_helpers_compiled_once_serve_every_new_source(pool: Pool) -> None:
    # Each source is new (compiled by its child); the helpers come compiled from the zygote
    # after the first job, and behave exactly as when compiled in the child.
    for serial in range(4):
        result = run_with_helpers(pool, f"def f(x):\n    return double(x) + {serial}\n")
        assert [case.value for case in result.cases] == [
            {"t": "int", "v": 2 + serial},
            {"t": "int", "v": 4 + serial},
        ]
    failing = run_with_helpers(pool, "def f(x):\n    return broken(x)\n")
    error = failing.cases[0].error
    assert error is not None and error.type == "ZeroDivisionError"
    assert "helpers.py" in (error.trace or "")  # the helpers keep their own file name


def test_other_helpers_are_not_confused_with_cached_ones(pool: Pool) -> None:
    result = run_with_helpers(
        pool, "def f(x):\n    return double(x)\n", helpers="def double(x):\n    return 3 * x\n"
    )
    assert [case.value for case in result.cases] == [{"t": "int", "v": 3}, {"t": "int", "v": 6}]


DRIVER = "def drive(step, Generator, x):\n    return [step(x + k) for k in range(3)]\n"


def driven_job(code: str, driver: str = DRIVER) -> Job:
    return Job(
        code=code,
        entry_point="f",
        cases=({"x": 1},),
        parameters={"x": "value"},
        limits=FAST,
        driver=driver,
    )


def test_a_driver_is_compiled_once_by_the_zygote_and_runs_as_its_own_file(pool: Pool) -> None:
    # Trusted code the same for every learner (an exercise's driver or trace): the pool has the
    # zygote compile it once, and every later child runs that code, as if it compiled it itself.
    sent: list[bytes] = []
    writer = pool._writer
    assert writer is not None
    put = writer.put
    writer.put = lambda frame: (sent.append(frame), put(frame))[1]  # type: ignore[method-assign]
    for serial in range(3):
        result = pool.run(driven_job(f"def f(x):\n    return x * {serial + 2}\n"), timeout=30)
        values = [item["v"] for item in result.cases[0].value["v"]]
        assert values == [(1 + k) * (serial + 2) for k in range(3)]
    compiled = [frame for frame in sent if b'"op":"trusted"' in frame]
    assert len(compiled) == 1 and b'"filename":"driver.py"' in compiled[0]
    # Another driver is another key: compiled too, never mistaken for the first.
    other = DRIVER.replace("range(3)", "range(2)")
    result = pool.run(driven_job("def f(x):\n    return x\n", other), timeout=30)
    assert [item["v"] for item in result.cases[0].value["v"]] == [1, 2]
    assert len([frame for frame in sent if b'"op":"trusted"' in frame]) == 2
    # What the compiled driver raises is the case's outcome, as when the child compiles it.
    dividing = "def drive(step, Generator, x):\n    return step(x) / 0\n"
    failing = pool.run(driven_job("def f(x):\n    return 1\n", dividing), timeout=30)
    error = failing.cases[0].error
    assert failing.cases[0].outcome == "raised" and error is not None
    assert error.type == "ZeroDivisionError"


def test_one_job_shares_one_reply_budget_across_its_children(pool: Pool) -> None:
    # Red team: each case's result near a quarter of the reply cap, forty cases. A child whose
    # mailbox overflows ends there; the job must not go on filling fresh children's mailboxes.
    code = "def f(x):\n    return [0.123456789012345678] * 9999\n"
    limits = Limits(time_ms=4000, memory_mb=128)
    result = run(pool, code, list(range(40)), limits)
    outcomes = [case.outcome for case in result.cases]
    assert len(outcomes) == 40
    first_over = outcomes.index("output")
    assert outcomes[:first_over] == ["returned"] * first_over
    assert outcomes[first_over + 1 :] == ["not_run"] * (39 - first_over)


def test_large_job_bodies_and_large_replies_together_never_deadlock() -> None:
    # Red team: a caller blocked writing a job (the pool's lock held) while the zygote
    # was blocked writing a reply nobody read: the server hung for good. 64 KB of code that JSON
    # escapes six-fold, and replies near the mailbox's cap, many at once.
    code = "# " + "\x01" * 60_000 + "\ndef f(x):\n    return ['y' * 2000] * 480\n"
    job = Job(
        code=code,
        entry_point="f",
        cases=tuple({"x": i} for i in range(4)),
        parameters={"x": "value"},
        limits=Limits(time_ms=4000, memory_mb=128, code_bytes=128 * 1024),
    )
    with Pool(workers=2, queue_size=24) as pool:
        futures = [pool.submit(job) for _ in range(24)]
        results = [future.result(timeout=90) for future in futures]
        assert pool.status()["alive"]
    for result in results:
        assert result.cases and result.cases[0].outcome == "returned"


def test_demoted_jobs_left_out_of_the_bound_are_never_more_than_the_slow_lane() -> None:
    # Red team: a demoted job kept its flag when its child ended and it started again
    # in the fast queue (the slow lane full), so every such job fell outside the bound: 192 in
    # flight against a capacity of 74. Two jobs flagged so, a slow lane of one: the next waits.
    from sandbox.assembly import JobRecord
    from sandbox.pool import _Pending

    with Pool(workers=1, queue_size=0, slow_lane=1) as small:
        for job_id in (-1, -2):
            flagged = _Pending(Future(), JobRecord(total=1, limits=FAST), b"")
            flagged.demoted = True
            small._pending[job_id] = flagged  # white box: the pool's own bookkeeping
        with pytest.raises(PoolSaturated):
            small.submit(spinning_job(100))
        small._pending.clear()
        # with one flagged job (it is parked), a new one is admitted
        flagged = _Pending(Future(), JobRecord(total=1, limits=FAST), b"")
        flagged.demoted = True
        small._pending[-1] = flagged
        admitted = small.submit(spinning_job(100))
        small._pending.pop(-1)
        assert admitted.result(timeout=30).cases[0].outcome == "timeout"


def test_only_a_trusted_job_runs_outside_the_learner_policy(pool: Pool) -> None:
    # The policy refuses '_' names; the exercise's reference (trusted=True) is plain Python,
    # still in a confined child. A learner's job never carries the flag (tests/http checks).
    code = "def f(x):\n    return type(x).__name__\n"
    refused = run(pool, code.replace("type(x).__name__", "x.__class__"), [1])
    assert refused.setup is not None and refused.setup.kind == "refused"
    job = Job(
        code=code,
        entry_point="f",
        cases=({"x": 1},),
        parameters={"x": "value"},
        limits=FAST,
        trusted=True,
    )
    result = pool.run(job, timeout=30)
    assert result.setup is None and result.cases[0].value == {"t": "str", "v": "int"}
    assert result.layers["seccomp"] and result.layers["landlock"]  # confined all the same


def test_numpy_error_handling_is_put_back_after_each_call(pool: Pool) -> None:
    # The first call leaves np.errstate(call=hook) installed, held open by a suspended generator
    # (learner code can no longer write that: a yield inside a with block is refused; trusted
    # code can). Whatever runs after the call in the child, the trusted code first, must not
    # call the hook: each later call divides by zero and tells whether the hook fired.
    code = (
        "import numpy as np\n"
        "fired, held = [], []\n"
        "def hook(kind, flag):\n"
        "    fired.append(kind)\n"
        "def installed():\n"
        "    with np.errstate(all='call', call=hook):\n"
        "        yield\n"
        "def f(x):\n"
        "    if x == 0:\n"
        "        held.append(installed())\n"
        "        next(held[0])\n"
        "        return 'installed'\n"
        "    fired.clear()\n"
        "    np.array([1.0]) / np.array([0.0])\n"
        "    return 'fired' if fired else 'quiet'\n"
    )
    job = Job(
        code=code,
        entry_point="f",
        cases=({"x": 0}, {"x": 1}, {"x": 2}),
        parameters={"x": "value"},
        limits=FAST,
        trusted=True,
    )
    result = pool.run(job, timeout=30)
    assert [case.value for case in result.cases] == [
        {"t": "str", "v": value} for value in ("installed", "quiet", "quiet")
    ]
