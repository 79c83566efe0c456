"""The policy's cheaper walk (sandbox/policy/walk.py) transforms every tree exactly as the
standard library's NodeTransformer walk does: same tree, same positions, same refusals.

The corpus is every Python source the project holds: the exercises' files, the golden
submissions, and each string in the tests that parses as Python (the hostile payloads among
them), so that a construct the walk mishandled would show as a difference."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from RestrictedPython.transformer import RestrictingNodeTransformer

from sandbox.policy.compiler import LearnerTransformer

ROOT = Path(__file__).resolve().parents[3]


class StandardWalk(LearnerTransformer):
    """The same policy walked by the standard library's methods."""

    visit = ast.NodeVisitor.visit
    node_contents_visit = RestrictingNodeTransformer.node_contents_visit


def sources() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in ("exercises", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            try:
                tree = ast.parse(text)
            except SyntaxError:  # a golden submission that fails to compile: no tree to walk
                continue
            found[str(path.relative_to(ROOT))] = text
            if folder != "tests":
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    try:
                        ast.parse(node.value)
                    except (SyntaxError, ValueError):
                        continue
                    found[f"{path.relative_to(ROOT)}:{node.lineno}"] = node.value
    return found


def transformed(policy: type[LearnerTransformer], source: str) -> tuple[Any, ...]:
    errors: list[str] = []
    warnings: list[str] = []
    used: dict[str, bool] = {}
    tree = ast.parse(source)
    policy(errors, warnings, used).visit(tree)
    return ast.dump(tree, include_attributes=True), errors, warnings, used


def test_the_walk_changes_no_tree_position_or_refusal() -> None:
    corpus = sources()
    refused = 0
    for name, source in corpus.items():
        standard = transformed(StandardWalk, source)
        assert transformed(LearnerTransformer, source) == standard, name
        refused += bool(standard[1])
    # The corpus holds code the policy refuses as well as code it lets through.
    assert len(corpus) > 1000 and refused > 100, (len(corpus), refused)


def test_a_visitor_that_drops_or_splices_items_is_obeyed() -> None:
    """The list rules themselves, on a walk that drops every ``pass`` and splices each
    ``del`` into two statements, and a dict whose ``**`` entry (key None) follows a key the
    policy rewrites (``x[0]`` becomes a guarded call)."""

    class Editing(LearnerTransformer):
        def visit_Pass(self, node: ast.Pass) -> None:
            return None

        def visit_Delete(self, node: ast.Delete) -> list[ast.stmt]:
            return [ast.Expr(ast.Constant(1)), ast.Expr(ast.Constant(2))]

    class StandardEditing(Editing):
        visit = ast.NodeVisitor.visit
        node_contents_visit = RestrictingNodeTransformer.node_contents_visit

    source = "def f(x):\n    pass\n    del x\n    return {x[0]: 1, **x}\n"
    ours, theirs = transformed(Editing, source), transformed(StandardEditing, source)
    assert ours == theirs
    assert "Pass" not in ours[0] and "Delete" not in ours[0]
    assert "keys=[Call(func=Name(id='_getitem_'" in ours[0] and ", None], values=" in ours[0]
