"""grade(exercise, code) -> Report: a sandbox run, then the trusted checks, then feedback.

(Being written: the interface below is stable.)
"""

from __future__ import annotations

from app.catalog import Exercise
from app.schemas import Report


class Judge:
    """Grades submissions through one warm sandbox pool; safe to share across threads."""

    def grade(self, exercise: Exercise, code: str) -> Report:  # blocking
        raise NotImplementedError

    async def grade_async(self, exercise: Exercise, code: str) -> Report:
        """Never blocks the event loop; raises app.errors.Saturated when the queue is full."""
        raise NotImplementedError

    def health(self) -> dict[str, object]:
        """{"layers": {name: bool}, "pool": {...}} for /api/health and `judge doctor`."""
        raise NotImplementedError

    def close(self) -> None:
        """Stops the zygote and every child; idempotent."""
        raise NotImplementedError
