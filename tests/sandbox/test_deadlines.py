"""How the zygote times a child's cases: one budget per case, on its own clock."""

from __future__ import annotations

import time

from sandbox.limits import Limits
from sandbox.mailbox import Mailbox
from sandbox.zygote import Attempt, Spare


def attempt_from(first_case: int, assigned: float, mailbox: Mailbox) -> Attempt:
    spare = Spare(pid=0, job_fd=-1, exit_fd=-1, mailbox=mailbox, limits=Limits(time_ms=1000))
    return Attempt(job_id=1, spare=spare, first_case=first_case, cases=6, assigned=assigned)


def test_a_childs_first_case_shares_its_budget_with_everything_before_it() -> None:
    mailbox = Mailbox(4096)
    assigned = time.monotonic() - 0.9  # the top level took 0.9 s of the 1 s budget
    attempt = attempt_from(first_case=2, assigned=assigned, mailbox=mailbox)
    assert attempt.deadline(time.monotonic()) == assigned + 1.0
    mailbox.start_case(2)  # the first case starts late: it does not get a fresh second
    assert attempt.deadline(time.monotonic()) == assigned + 1.0
    mailbox.region.close()


def test_each_later_case_gets_a_full_budget_of_its_own() -> None:
    mailbox = Mailbox(4096)
    assigned = time.monotonic() - 0.9
    attempt = attempt_from(first_case=2, assigned=assigned, mailbox=mailbox)
    mailbox.start_case(3)
    started = mailbox.running()[1]
    assert attempt.deadline(time.monotonic()) == started + 1.0
    mailbox.region.close()


def test_a_claim_cannot_stretch_the_deadline_past_one_budget_per_remaining_case() -> None:
    mailbox = Mailbox(4096)
    assigned = time.monotonic() - 10.0  # long ago: case 5 claims to have started just now
    attempt = attempt_from(first_case=2, assigned=assigned, mailbox=mailbox)
    mailbox.start_case(5)
    assert attempt.deadline(time.monotonic()) == assigned + 1.0 * (6 - 2 + 1)
    mailbox.region.close()
