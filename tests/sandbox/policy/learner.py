"""Shared by the policy's unit tests: learner code compiled and run under a fresh policy, in
this process (no sandbox: these check the policy's rules, the hostile tests check the judge)."""

from __future__ import annotations

from typing import Any

from sandbox.policy import Policy, compile_learner


def run(source: str) -> Any:
    """Compile ``import numpy as np`` + ``source`` under the policy, run it, call its ``f()``."""
    namespace = Policy().namespace()
    exec(compile_learner("import numpy as np\n" + source), namespace)
    return namespace["f"]()


def with_objects(body: str) -> str:
    """A learner f() that has an array of Python objects ``a`` and then runs ``body``."""
    return f"def f():\n    a = np.array([3, 1, 2], dtype=object)\n    {body}\n"
