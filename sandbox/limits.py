"""The limits one submission runs under, fixed per exercise and immutable once made."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Resource limits of one confined child.

    ``time_ms`` is the wall-clock budget of one test case (each case gets its own deadline);
    ``memory_mb`` is the address space the learner may add on top of the warm interpreter.
    """

    time_ms: int = 2000
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
    def cpu_seconds(self) -> int:
        """CPU budget for a whole child: the sum of its case deadlines, rounded up, plus slack."""
        return max(2, -(-self.time_ms // 1000) * 8 + 1)
