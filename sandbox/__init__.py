"""The trust boundary: run untrusted learner code in warm, confined child processes.

The host side (``Pool``) is trusted; everything under ``child`` runs in the confined child.
This package never imports ``app``: it knows nothing of expected outputs or grading.
"""

from sandbox.limits import Limits
from sandbox.pool import Pool, PoolSaturated, SandboxUnavailable
from sandbox.protocol import CaseRun, ErrorInfo, RunResult, SetupFailure

__all__ = [
    "CaseRun",
    "ErrorInfo",
    "Limits",
    "Pool",
    "PoolSaturated",
    "RunResult",
    "SandboxUnavailable",
    "SetupFailure",
]
