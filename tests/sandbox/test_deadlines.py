"""How the zygote times a job: one CPU budget for all its cases, a wall-clock backstop, and
demotion out of the fast lane once it has run long (read on the zygote's own clocks)."""

from __future__ import annotations

import os
import time

from sandbox.attempts import Attempt, Spare
from sandbox.budget import DEMOTE_WALL_S, cpu_seconds
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox

LIMITS = Limits(time_ms=1000)


def attempt_from(mailbox: Mailbox, **fields: float) -> Attempt:
    """An attempt whose 'child' is this test process: its CPU clock is a real one."""
    spare = Spare(pid=os.getpid(), job_fd=-1, exit_fd=-1, mailbox=mailbox, limits=LIMITS)
    fields.setdefault("assigned", time.monotonic())
    fields.setdefault("cpu_start", cpu_seconds(os.getpid()) or 0.0)
    return Attempt(job_id=1, spare=spare, first_case=2, cases=6, **fields)  # type: ignore[arg-type]


def test_a_childs_cpu_clock_is_read_from_outside() -> None:
    before = cpu_seconds(os.getpid())
    sum(range(2_000_000))  # spend some CPU
    after = cpu_seconds(os.getpid())
    assert before is not None and after is not None and after > before
    assert abs(after - time.process_time()) < 0.05  # the same clock as the process's own


def test_a_fresh_child_inherits_what_the_jobs_earlier_children_spent() -> None:
    mailbox = Mailbox(4096)
    attempt = attempt_from(mailbox, spent_cpu=0.9)
    assert attempt.budget_left(time.monotonic()) <= 0.1
    spent = attempt_from(mailbox, spent_cpu=1.0)
    assert spent.budget_left(time.monotonic()) <= 0
    mailbox.close()


def test_the_budget_is_cpu_time_not_time_spent_waiting() -> None:
    mailbox = Mailbox(4096)
    # Assigned 0.5 s ago, but (as for a child waiting for a core) no CPU spent since.
    attempt = attempt_from(mailbox, assigned=time.monotonic() - 0.5)
    left = attempt.budget_left(time.monotonic())
    assert 0.9 < left <= 1.0  # the CPU budget is nearly whole
    mailbox.close()


def test_the_wall_clock_backstop_stops_a_child_that_spends_no_cpu() -> None:
    mailbox = Mailbox(4096)
    assert LIMITS.wall_ms > LIMITS.time_ms
    sleeping = attempt_from(mailbox, spent_wall=LIMITS.wall_ms / 1000)
    assert sleeping.budget_left(time.monotonic()) <= 0
    assert sleeping.cpu_used() < LIMITS.time_ms / 1000
    mailbox.close()


def test_a_job_is_due_for_demotion_once_it_has_run_a_few_tens_of_ms() -> None:
    mailbox = Mailbox(4096)
    fresh = attempt_from(mailbox)
    assert fresh.demotion_left(time.monotonic()) > 0
    long_running = attempt_from(mailbox, assigned=time.monotonic() - DEMOTE_WALL_S)
    assert long_running.demotion_left(time.monotonic()) <= 0
    mailbox.close()
