"""The grading package's edge: the rest of the app uses only its public names, and grading
knows nothing of HTTP, the history or the command line."""

from __future__ import annotations

import ast
from pathlib import Path

import app.grading
from tests.probe import REPO

GRADING = REPO / "app" / "grading"
# What grading must not reach for: the web layer, the history, the command line.
OUTSIDE = ("app.routes", "app.deps", "app.main", "app.server", "app.lifespan", "app.cli")
OUTSIDE += ("app.doctor", "app.history", "app.databases", "fastapi", "starlette", "uvicorn")


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names taken from it) for every absolute import in ``path``."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def test_the_rest_of_the_app_uses_only_the_public_names() -> None:
    outside = [p for p in sorted((REPO / "app").rglob("*.py")) if GRADING not in p.parents]
    assert outside, "no module outside app/grading/ was found"
    for path in outside:
        where = path.relative_to(REPO)
        for module, names in _imports(path):
            assert not module.startswith("app.grading."), f"{where} imports {module}"
            if module == "app.grading":
                private = [name for name in names if name not in app.grading.__all__]
                assert not private, f"{where} imports {private} from app.grading"


def test_grading_does_not_reach_into_the_web_layer_history_or_cli() -> None:
    modules = sorted(GRADING.rglob("*.py"))
    assert len(modules) > 1
    for path in modules:
        for module, _ in _imports(path):
            banned = [name for name in OUTSIDE if module == name or module.startswith(name + ".")]
            assert not banned, f"{path.relative_to(REPO)} imports {module}"


def test_every_public_name_resolves_and_no_other() -> None:
    for name in app.grading.__all__:
        assert getattr(app.grading, name) is not None, name
    try:
        app.grading.not_a_public_name  # noqa: B018
    except AttributeError as error:
        assert "not_a_public_name" in str(error)
    else:
        raise AssertionError("an unknown name resolved")
