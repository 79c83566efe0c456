"""The walk of the policy's transformer over a learner's tree: ``ast.NodeTransformer``'s rules,
at less of its cost.

Every grade compiles the learner's file in a fresh child, and the walk is most of
RestrictedPython's transform there: ``NodeVisitor.visit`` builds a method name and looks it up
on every node, and ``NodeTransformer.generic_visit`` runs a generator over each node's fields
and writes every field and list back, changed or not. This walk finds each node type's method
once per process and writes back only what a visitor replaced. What it returns, removes or
splices is the same as the standard library's (tests/sandbox/policy/test_walk.py compares the
trees).
"""

from __future__ import annotations

import ast
from typing import Any, ClassVar


class CheaperWalk(ast.NodeTransformer):
    """Mixed in before RestrictedPython's transformer: ``visit`` and ``node_contents_visit``
    (its name for the standard ``generic_visit``) with the same results.

    A node type without a ``visit_`` method still reaches ``generic_visit``, which
    RestrictedPython defines to refuse it (a node type no one has reviewed)."""

    # One table per transformer class (a subclass may define other visitors): node type ->
    # the function that visits it. Filled as types are met; the zygote's warm-up fills it
    # before any child is forked.
    _visitors: ClassVar[dict[type, Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._visitors = {}

    def visit(self, node: ast.AST) -> Any:
        kind = type(node)
        visitor: Any = self._visitors.get(kind)
        if visitor is None:
            visitor = getattr(type(self), "visit_" + kind.__name__, type(self).generic_visit)
            self._visitors[kind] = visitor
        return visitor(self, node)

    def node_contents_visit(self, node: Any) -> Any:
        for field in node._fields:
            try:
                old = getattr(node, field)
            except AttributeError:
                continue
            if isinstance(old, list):
                self._visit_list(old)
            elif isinstance(old, ast.AST):
                new = self.visit(old)
                if new is None:
                    delattr(node, field)
                elif new is not old:
                    setattr(node, field, new)
        return node

    def _visit_list(self, items: list[Any]) -> None:
        """Visit a field's list in place: a visitor's None drops its item, a list (not a
        node) is spliced in, a node replaces it; the list is rebuilt only if one did so."""
        rebuilt: list[Any] | None = None
        for position, item in enumerate(items):
            if not isinstance(item, ast.AST):  # kept as it is (a dict's None key for **)
                if rebuilt is not None:
                    rebuilt.append(item)
                continue
            new = self.visit(item)
            if rebuilt is None:
                if new is item:
                    continue
                rebuilt = items[:position]
            if new is None:
                continue
            if isinstance(new, ast.AST):
                rebuilt.append(new)
            else:
                rebuilt.extend(new)
        if rebuilt is not None:
            items[:] = rebuilt
