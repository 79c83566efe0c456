"""The limits one submission runs under, fixed per exercise and immutable once made."""

from __future__ import annotations

from dataclasses import dataclass

# After each call the child sends back every argument it handed over (the mutation check): up to
# this many values in all, for all the arguments of one case together (about 0.4-0.8 MB of JSON,
# within a job's reply budget), and strings up to SNAPSHOT_TEXT characters. Past either, an
# argument comes back as "too big" and is not checked; a learner's own input stays within both.
SNAPSHOT_ITEMS = 20_000
SNAPSHOT_TEXT = 2_000

# A sleeping or blocked child uses no CPU: the wall clock stops it at this many times its CPU
# budget (CMS gives twice the limit and one second more; a shared, loaded machine needs the
# slack, a sleeper no more).
WALL_FACTOR = 2


@dataclass(frozen=True)
class Limits:
    """Resource limits of one submission.

    ``time_ms`` is the CPU time the learner's code may use across *all* its cases (one budget
    per submission); ``wall_ms`` is the wall-clock backstop for the whole submission.
    ``memory_mb`` is the address space the learner may add on top of the warm interpreter.
    """

    time_ms: int = 1000
    memory_mb: int = 256
    output_bytes: int = 16 * 1024
    reply_bytes: int = 1024 * 1024
    code_bytes: int = 64 * 1024
    open_files: int = 32

    def __post_init__(self) -> None:
        for name in ("time_ms", "memory_mb", "output_bytes", "reply_bytes", "code_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")
        if not 8 <= self.open_files <= 1024:
            raise ValueError(f"Limits.open_files must be within 8..1024, got {self.open_files}")

    @property
    def wall_ms(self) -> int:
        """Wall-clock backstop of a whole submission (sleepers spend no CPU)."""
        return WALL_FACTOR * self.time_ms

    @property
    def cpu_seconds(self) -> int:
        """RLIMIT_CPU of one child, a backstop behind the zygote's own CPU accounting: the
        budget rounded up, plus a second for the child's set-up and the kill's latency."""
        return -(-self.time_ms // 1000) + 1
