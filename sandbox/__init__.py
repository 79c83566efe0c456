"""The trust boundary: run untrusted learner code in warm, confined child processes.

The host side (``Pool``) is trusted; everything under ``child`` runs in the confined child.
This package never imports ``app``: it knows nothing of expected outputs or grading.

Names are resolved on first use: the zygote imports this package too, and every module it
loads (subprocess, threading, hashlib's libcrypto for the host's pool) would be memory every
fork copies page tables for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers (at run time they load on first use)
    from sandbox.job import Job, RandomMode
    from sandbox.limits import SNAPSHOT_ITEMS, SNAPSHOT_TEXT, Limits
    from sandbox.pool import Pool, PoolSaturated
    from sandbox.results import (
        CaseRun,
        ErrorInfo,
        Outcome,
        RunResult,
        SetupFailure,
        SetupKind,
    )
    from sandbox.zygote_process import SandboxUnavailable

_HOMES = {
    "Limits": "sandbox.limits",
    "SNAPSHOT_ITEMS": "sandbox.limits",
    "SNAPSHOT_TEXT": "sandbox.limits",
    "Pool": "sandbox.pool",
    "PoolSaturated": "sandbox.pool",
    "SandboxUnavailable": "sandbox.zygote_process",
    "CaseRun": "sandbox.results",
    "ErrorInfo": "sandbox.results",
    "Job": "sandbox.job",
    "Outcome": "sandbox.results",
    "RandomMode": "sandbox.job",
    "RunResult": "sandbox.results",
    "SetupFailure": "sandbox.results",
    "SetupKind": "sandbox.results",
}
__all__ = [
    "CaseRun",
    "ErrorInfo",
    "Job",
    "Limits",
    "Outcome",
    "Pool",
    "PoolSaturated",
    "RandomMode",
    "RunResult",
    "SNAPSHOT_ITEMS",
    "SNAPSHOT_TEXT",
    "SandboxUnavailable",
    "SetupFailure",
    "SetupKind",
]
assert sorted(__all__) == sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
