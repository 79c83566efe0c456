"""A child as the zygote keeps it: a spare waiting for its job, an attempt at a job with the
job's budget, and when a new spare is worth forking.

Every reading here is taken from outside the child (its CPU clock through ``sandbox.budget``);
nothing the child writes decides how much of its budget is left.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sandbox.budget import DEMOTE_CPU_S, DEMOTE_PRESSED_CPU_S, DEMOTE_WALL_S, cpu_seconds
from sandbox.limits import Limits
from sandbox.mailbox import Mailbox


@dataclass
class Spare:
    """A forked, confined child waiting for its one job."""

    pid: int
    job_fd: int  # the zygote writes the assignment here
    exit_fd: int  # never written by the child: end-of-file means it has exited
    mailbox: Mailbox
    limits: Limits


@dataclass(eq=False)  # by identity: the zygote keys its checks by attempt
class Attempt:
    """One child working on one job, from a given case on.

    The job's budget is shared by its attempts: ``spent_cpu`` and ``spent_wall`` are what the
    earlier children of the same job used (a case that crashed its child continues in a fresh
    one, with what is left). ``cpu_start`` is the child's CPU clock when it got the job.
    """

    job_id: int
    spare: Spare
    first_case: int
    cases: int
    assigned: float
    spent_cpu: float = 0.0
    spent_wall: float = 0.0
    cpu_start: float = 0.0
    slow: bool = False  # parked in the slow lane (demoted), not holding a fast slot
    timed_out: bool = False
    long: bool = False  # the host says it runs many steps (a distribution check's job)

    def cpu_used(self) -> float:
        """CPU seconds this job has used, this child included; a clock that cannot be read
        counts as wall time (never in the learner's favour)."""
        now = cpu_seconds(self.spare.pid)
        own = time.monotonic() - self.assigned if now is None else max(0.0, now - self.cpu_start)
        return self.spent_cpu + own

    def wall_used(self, now: float) -> float:
        return self.spent_wall + (now - self.assigned)

    def budget_left(self, now: float, cpu_used: float | None = None) -> float:
        """Seconds before this job could be over its budget (CPU or the wall backstop);
        ``cpu_used`` is a reading of ``cpu_used()`` just taken, if the caller has one."""
        limits = self.spare.limits
        used = self.cpu_used() if cpu_used is None else cpu_used
        return min(limits.time_ms / 1000 - used, limits.wall_ms / 1000 - self.wall_used(now))

    def demotion_left(
        self, now: float, cpu_used: float | None = None, pressed: bool = False
    ) -> float:
        """Seconds before this fast-lane job has run long enough to be demoted (sooner when
        ``pressed``: a job waits for a fast slot)."""
        used = self.cpu_used() if cpu_used is None else cpu_used
        limit = DEMOTE_PRESSED_CPU_S if pressed else DEMOTE_CPU_S
        return min(limit - (used - self.spent_cpu), self.assigned + DEMOTE_WALL_S - now)


def spare_wanted(fast: list[Attempt], spares: int) -> bool:
    """Whether a spare should be forked now, given the jobs in fast slots and the spares waiting.

    A fork costs the zygote milliseconds and busies a core with the new child's set-up.
    Done while a child runs, it delays noticing that child's end by about as much (a sizeable
    part of a grade at light load), so a spare is forked only while no child runs
    in a fast slot (parked, demoted children run long anyway), or when none waits at all. A job
    that finds no spare gets a child forked on demand.

    Not even then while a long job (a distribution check's) runs in a fast slot: the fork and
    the new child's set-up and rehearsal slow it down, even from the other core (measured on a
    Submit's check and learner jobs side by side: docs/performance.md). The spares are forked
    after it.
    """
    if not fast:
        return True
    if spares:
        return False
    return not any(attempt.long for attempt in fast)
