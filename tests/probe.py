"""Run a short Python program in a fresh, isolated interpreter and read the JSON it prints last.

For facts that only a clean interpreter shows (which modules an import loads), where the test
process, with everything already imported, would see nothing."""

from __future__ import annotations

import json
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
