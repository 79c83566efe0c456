"""A submission's time budget as the zygote keeps it: the CPU clock of a child, and when to
demote a child that runs long (lowest CPU priority, out of the fast lane).

The budget is CPU time, not wall time: on a loaded machine a correct submission waits for a
core without spending its budget, and a spinning one spends it at the rate it gets the CPU.
A child is single-threaded (seccomp refuses ``clone``), so its CPU clock never runs faster
than the wall clock: the zygote need only look again when the budget *could* be spent.
"""

from __future__ import annotations

import os
import time

# A job that has used this much CPU is demoted: it leaves its fast slot for the slow lane. A
# correct grade of six cases uses a few ms of its child's CPU; a spinner reaches this at once.
DEMOTE_CPU_S = 0.025
# Sooner while a job waits for a fast slot: a spinner then keeps the one waiting behind it for
# less of its CPU (in the classroom mix, the correct learner's p99 was the wait behind fresh
# spinners). Not much lower: under a sustained load the queue is never empty, and a correct
# resample Run's child comes close to this bound there (docs/performance.md has the figures).
DEMOTE_PRESSED_CPU_S = 0.018
# The wall clock demotes too, later, for a child that holds its slot without spending CPU (a
# blocked one). Not sooner: on a busy machine a correct job waiting for a core spends wall
# time too, and demoted, it would compete with the spinners on equal (lowest) terms.
DEMOTE_WALL_S = 0.250
# How often, at most, the zygote looks at a child's clock (never a busy loop).
MIN_CHECK_S = 0.002
LOWEST_NICENESS = 19
_CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def _process_clock(pid: int) -> int:
    # Linux encodes a process's CPU clock as ((~pid) << 3) | CPUCLOCK_SCHED (2): the clock
    # clock_getcpuclockid(3) returns, which Python does not expose for another process.
    return ((~pid) << 3) | 2


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a living child has used so far; None if it cannot be read."""
    try:
        return time.clock_gettime(_process_clock(pid))
    except OSError:
        pass
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICK
    except (OSError, IndexError, ValueError):
        return None


def demote(pid: int) -> bool:
    """Give a child the lowest CPU priority there is; True if it took effect.

    SCHED_IDLE runs it only when no other work wants the core, and niceness 19 is the fallback
    where that policy is refused. The zygote is the child's parent with the same or higher
    privilege, so lowering a child's priority is always allowed; raising it never happens.
    """
    lowered = False
    try:
        os.setpriority(os.PRIO_PROCESS, pid, LOWEST_NICENESS)
        lowered = True
    except OSError:
        pass
    try:
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        lowered = True
    except (OSError, AttributeError):
        pass
    return lowered


def undemote(pid: int) -> None:
    """Give a demoted child the normal policy back before it is killed, so that its exit is
    not left waiting for an idle core. Best effort: without CAP_SYS_NICE the kernel may refuse
    (the child then dies at the lowest priority, reaped later all the same)."""
    try:
        os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0))
    except (OSError, AttributeError):
        pass
