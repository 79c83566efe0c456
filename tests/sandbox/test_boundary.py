"""The trust boundary in the code: the sandbox never imports the app."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_sandbox_never_imports_app() -> None:
    for path in sorted((REPO / "sandbox").rglob("*.py")):  # the policy package too
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert name != "app" and not name.startswith("app."), f"{path.name} imports {name}"
    modules = sorted(
        ".".join(path.relative_to(REPO / "sandbox").with_suffix("").parts)
        for path in (REPO / "sandbox").rglob("*.py")
        if path.stem != "__init__"
    )
    probe = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module('sandbox.' + name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'app' or m.startswith('app.'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(REPO)!r})\n" + probe],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        check=True,
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
