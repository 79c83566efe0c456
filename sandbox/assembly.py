"""Host side: one job's result, assembled from the mailboxes of the children that worked on it.

A child that finishes reports every case. One that spends the job's time budget is stopped by
the zygote: its case is ``timeout`` and the later ones ``not_run``. One that crashes or floods
its output gets that outcome for its case, and the remaining cases go to a fresh child.
Everything a child wrote is validated here, on the trusted side.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from dataclasses import dataclass, field

from sandbox import framing, protocol
from sandbox.limits import Limits
from sandbox.protocol import AttemptReport, CaseReport, End, Hello, Ready
from sandbox.results import CaseRun, ErrorInfo, Outcome, RunResult, SetupFailure, SetupKind

# Signals no limit of the judge's sends and no learner's code can send itself (seccomp refuses
# kill() in a child): a child ended by one was killed from outside (the kernel's OOM killer, an
# operator). SIGKILL is also the judge's own, for a job past its budget: that one is flagged
# ``timed_out`` by the zygote, or is RLIMIT_CPU's hard limit, past the CPU budget.
FOREIGN_SIGNALS = frozenset(
    {
        signal.SIGKILL,
        signal.SIGTERM,
        signal.SIGINT,
        signal.SIGHUP,
        signal.SIGQUIT,
        signal.SIGUSR1,
        signal.SIGUSR2,
    }
)


class KilledFromOutside(RuntimeError):
    """A job's child was killed from outside twice: not the learner's failure, no verdict."""


# How a child stopped before its cases, as the set-up failure the host words.
SETUP_KIND = {
    Outcome.timeout: SetupKind.timeout,
    Outcome.memory: SetupKind.memory,
    Outcome.output: SetupKind.output,
}


@dataclass
class JobRecord:
    """A submission in flight: its cases so far and what to run next."""

    total: int
    limits: Limits
    started: float = field(default_factory=time.monotonic)
    layers: dict[str, bool] = field(default_factory=dict)
    setup: SetupFailure | None = None
    cases: dict[int, CaseRun] = field(default_factory=dict)
    spent_cpu_ms: float = 0.0  # of the one budget, by the children so far
    spent_wall_ms: float = 0.0
    demoted: bool = False
    # What its children wrote, all together: one child's mailbox is capped, and a job whose
    # reply overflowed continues in a fresh child, so the job as a whole needs a cap too.
    reply_bytes: int = 0
    retried: bool = False  # a child was killed from outside once, and its cases ran again

    def absorb(self, report: AttemptReport, mailbox: bytes) -> int | None:
        """Take in one child's mailbox; returns the next case to run, or None when done.

        A child stopped for the time budget ends the job: its case is the one that spent the
        budget, and every later case is ``not_run``. Any other end (memory, output, a crash)
        is that case's own verdict, and the rest continue in a fresh child.

        A child killed from outside (``killed_from_outside``) is nobody's verdict: the cases it
        did not report run again once, in a fresh child, with the budget as it was before it;
        a second such kill raises ``KilledFromOutside``.
        """
        foreign = self.killed_from_outside(report)
        if not foreign:
            self.spent_cpu_ms += max(0.0, report.cpu_ms)
            self.spent_wall_ms += max(0.0, report.elapsed_ms)
        # A mailbox that overflowed counts as full: what did not fit was no smaller.
        self.reply_bytes += self.limits.reply_bytes if report.overflowed else len(mailbox)
        try:
            ready, ended = self._digest(report.first_case, mailbox)
            broken = None
        except framing.ProtocolError as exc:
            ready, ended, broken = False, False, str(exc)
        if self.setup is not None or ended:
            return None
        if foreign:
            if self.retried:
                signalled = signal.Signals(os.WTERMSIG(report.status)).name
                raise KilledFromOutside(f"a grading process was killed from outside ({signalled})")
            self.retried = True
            following = report.first_case
            while following in self.cases:
                following += 1
            return following if following < self.total else None
        outcome, error, status = self._cause(report, broken)
        stopped = CaseRun(outcome=outcome, error=error, exit_status=status)
        running = report.running
        if ready and report.first_case <= running < self.total and running not in self.cases:
            spent = float(self.limits.time_ms) if outcome is Outcome.timeout else 0.0
            self.cases[running] = dataclasses.replace(stopped, duration_ms=spent)
            following = running + 1
        elif ready and running in self.cases and outcome is not Outcome.timeout:
            following = running + 1  # the case was reported; the child died between cases
        elif ready:
            following = max(self.cases, default=report.first_case - 1) + 1
            if following < self.total and following not in self.cases:
                self.cases[following] = stopped
                following += 1
        elif report.first_case > 0:
            # A fresh child for the rest of a job whose set-up already succeeded: whatever
            # stops it before its first case is that case's outcome, not a set-up failure.
            self.cases[report.first_case] = stopped
            following = report.first_case + 1
        else:
            kind = SETUP_KIND.get(outcome, SetupKind.crashed)
            detail = error.message if error is not None else ""
            self.setup = SetupFailure(kind=kind, message=detail, exit_status=status)
            return None
        if outcome is Outcome.timeout or self.reply_bytes >= self.limits.reply_bytes:
            # The time budget is spent, or the room for the whole job's results is full: the
            # case just stopped is the one that spent it, and later cases do not run.
            for index in range(following, self.total):
                self.cases[index] = CaseRun(outcome=Outcome.not_run)
            return None
        return following if following < self.total else None

    def killed_from_outside(self, report: AttemptReport) -> bool:
        """Whether the child was ended by a signal no limit of the judge's sends."""
        status = report.status
        if report.timed_out or not os.WIFSIGNALED(status):
            return False
        if os.WTERMSIG(status) not in FOREIGN_SIGNALS:
            return False
        over_budget = self.spent_cpu_ms + report.cpu_ms >= self.limits.time_ms
        return not (os.WTERMSIG(status) == signal.SIGKILL and over_budget)

    def _cause(
        self, report: AttemptReport, broken: str | None
    ) -> tuple[Outcome, ErrorInfo | None, int | None]:
        """Why the child stopped, as data: (outcome, a protocol error, the wait status)."""
        status = report.status
        killed = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
        if report.timed_out or killed in (signal.SIGXCPU, signal.SIGKILL):
            # SIGKILL here is RLIMIT_CPU's hard limit (one from outside is retried instead).
            return Outcome.timeout, None, None
        if report.overflowed:
            return Outcome.output, None, None
        if broken:
            return Outcome.crashed, ErrorInfo(type="ProtocolError", message=broken), None
        return Outcome.crashed, None, status

    def _digest(self, first_case: int, mailbox: bytes) -> tuple[bool, bool]:
        """Apply one child's messages in order: (reached its cases, reported them all)."""
        reader = framing.FrameReader(max_frame=self.limits.reply_bytes)
        ready = False
        expected = first_case
        for raw in reader.feed(mailbox):
            message = protocol.parse_reply(raw, self.limits.output_bytes)
            if isinstance(message, CaseReport) and ready and message.index == expected:
                self.cases[expected] = message.run
                expected += 1
            elif isinstance(message, Hello):
                self.layers = dict(message.layers)
            elif isinstance(message, SetupFailure) and not ready:
                self.setup = message
                return False, True
            elif isinstance(message, Ready) and not ready:
                ready = True
            elif isinstance(message, End) and ready and expected == self.total:
                return True, True
            else:
                raise framing.ProtocolError(f"unexpected message {raw.get('t')!r}")
        return ready, False

    def result(self) -> RunResult:
        return RunResult(
            layers=self.layers,
            setup=self.setup,
            cases=[self.cases[index] for index in sorted(self.cases)],
            wall_ms=(time.monotonic() - self.started) * 1000,
            cpu_ms=self.spent_cpu_ms,
            demoted=self.demoted,
        )
