"""Run a short Python program in a fresh interpreter and read what it prints.

For facts that only a clean interpreter shows (which modules an import loads, its heap, its
threads, its forks), where the test process, with everything already imported, would see
nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def fresh_interpreter_json(program: str) -> Any:
    """The JSON on the last line ``program`` prints, run with ``python -I`` from ``/``."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(REPO)!r})\n" + program],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def printed_as_zygote(program: str) -> list[str]:
    """The words ``program`` prints, run as the pool starts the zygote: its interpreter flags and
    its environment (allocator settings, one BLAS thread); the project's root is ``sys.argv[1]``."""
    from sandbox.zygote_process import INTERPRETER_FLAGS, PROJECT_ROOT
    from sandbox.zygote_process import environment as zygote_environment

    env = {**zygote_environment(), "PATH": os.environ.get("PATH", "")}
    return subprocess.run(
        [sys.executable, *INTERPRETER_FLAGS, "-c", program, PROJECT_ROOT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
