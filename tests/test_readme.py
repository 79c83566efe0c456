"""The README's layout names every module a newcomer will meet, so it cannot fall behind."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("## Layout")
    return text[start : text.index("\n## ", start + 1)]


def _modules(package: str) -> list[str]:
    """The modules and subpackages of one package, as the layout names them."""
    found = []
    for path in sorted((ROOT / package).iterdir()):
        if path.suffix == ".py" and path.name != "__init__.py":
            found.append(path.name)
        elif (path / "__init__.py").is_file():
            found.append(f"{path.name}/")
    return found


def test_the_layout_names_every_module_of_the_app_and_the_sandbox() -> None:
    layout = _layout()
    missing = [
        f"{package}/{name}"
        for package in ("app", "sandbox")
        for name in _modules(package)
        if not re.search(rf"(?<![\w/]){re.escape(name)}", layout)
    ]
    assert missing == [], f"README.md's layout does not name {missing}"


def test_the_layout_names_every_top_level_folder() -> None:
    layout = _layout()
    folders = [
        path.name for path in sorted(ROOT.iterdir()) if path.is_dir() and _tracked(path.name)
    ]
    missing = [name for name in folders if f"{name}/" not in layout]
    assert missing == [], f"README.md's layout does not name {missing}"


def _tracked(name: str) -> bool:
    """A folder that is part of the project (not .git, a venv, caches or local state)."""
    return (
        not name.startswith(".")
        and name not in ("var", "build", "dist")
        and not name.endswith(".egg-info")
    )
