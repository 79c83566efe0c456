"""The import allowlist: built before the child is confined, handed out as surfaces."""

from __future__ import annotations

from sandbox.policy.imports import learner_modules
from tests.probe import fresh_interpreter_json


def test_a_policy_builds_every_surface_before_the_child_is_confined() -> None:
    # Policy() runs before confinement; compiling and importing run after it, when Landlock
    # refuses the files of any module not loaded yet (numpy loads numpy.random lazily, and it
    # imports secrets): neither may load a module.
    imports = ", ".join(name for name in learner_modules() if name != "__future__")
    probe = (
        "import json, sys\n"
        "from sandbox.policy import Policy, compile_learner\n"
        "policy = Policy()\n"
        "before = set(sys.modules)\n"
        f"exec(compile_learner('from __future__ import annotations\\nimport {imports}\\n'),"
        " policy.namespace())\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    assert fresh_interpreter_json(probe) == []
