"""The language policy learner code runs under: compile transform, surfaces, runtime guards.

RestrictedPython is one layer, not the sandbox: the OS layers in ``sandbox.confine`` hold even
if this one is bypassed. ``README.md`` beside this file lists every invariant the policy keeps,
the one place each is enforced and the hostile test that covers it. The rest of the sandbox
uses only the names below.
"""

from __future__ import annotations

from sandbox.policy.compiler import (
    HELPERS_FILENAME,
    LEARNER_FILENAME,
    CompileFailure,
    compile_learner,
)
from sandbox.policy.namespace import Policy
from sandbox.policy.refusal import PolicyError

__all__ = [
    "HELPERS_FILENAME",
    "LEARNER_FILENAME",
    "CompileFailure",
    "Policy",
    "PolicyError",
    "compile_learner",
]
