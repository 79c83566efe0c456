"""The trust boundary in the code: the sandbox never imports the app."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.probe import REPO, fresh_interpreter_json


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
    assert fresh_interpreter_json(probe) == []


def _imports(tree: ast.AST) -> list[tuple[ast.stmt, str, list[str]]]:
    """(statement, module, names taken from it) for every absolute import under ``tree``."""
    found: list[tuple[ast.stmt, str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node, node.module, [alias.name for alias in node.names]))
    return found


def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def test_the_app_uses_only_the_sandbox_packages_public_names() -> None:
    import sandbox

    for path in sorted((REPO / "app").rglob("*.py")):
        where = path.relative_to(REPO)
        for _, module, names in _imports(_parsed(path)):
            assert not module.startswith("sandbox."), f"{where} imports {module}"
            if module == "sandbox":
                private = [name for name in names if name not in sandbox.__all__]
                assert not private, f"{where} imports {private} from sandbox"


def test_neither_the_app_nor_the_sandbox_imports_the_benchmarks() -> None:
    # The one exception: `judge bench` / `judge loadtest` load them on demand from a checkout.
    for package in ("app", "sandbox"):
        for path in sorted((REPO / package).rglob("*.py")):
            where = str(path.relative_to(REPO))
            tree = _parsed(path)
            on_demand = {
                id(statement)
                for function in ast.walk(tree)
                if isinstance(function, ast.FunctionDef) and where == "app/cli.py"
                for statement, _, _ in _imports(function)
            }
            for statement, module, _ in _imports(tree):
                if module.split(".")[0] == "bench":
                    assert id(statement) in on_demand, f"{where} imports {module}"


def test_the_wheel_holds_the_product_and_no_benchmark_code() -> None:
    import tomllib

    from setuptools import find_packages

    find = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = find_packages(str(REPO), **find["packages"]["find"])
    assert "app" in shipped and "sandbox" in shipped
    assert [name for name in shipped if name.split(".")[0] not in ("app", "sandbox")] == []
    assert not [name for name in shipped if "bench" in name or "loadtest" in name]
