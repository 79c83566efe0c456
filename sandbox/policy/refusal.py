"""The exception learner code gets when the judge's policy refuses something it tried."""

from __future__ import annotations


class PolicyError(Exception):
    """Learner code tried something the judge does not allow (a clear, learner-facing message)."""
