"""Compiling learner code: RestrictedPython's transformer, plus what learners write every day.

Compilation happens in the confined child (a compiler-crashing source crashes only that child)
and, for sources a child already compiled without trouble, in the zygote's cache.
"""

from __future__ import annotations

import ast
from typing import Any

from RestrictedPython import compile_restricted_exec
from RestrictedPython.transformer import RestrictingNodeTransformer

LEARNER_FILENAME = "solution.py"
HELPERS_FILENAME = "helpers.py"


class LearnerTransformer(RestrictingNodeTransformer):
    """RestrictedPython's transformer, plus augmented assignment of items and attributes.

    ``x[i] += 1`` and ``self.n += 1`` are everyday learner code that RestrictedPython refuses;
    they are rewritten into calls of guarded helpers that read, combine and write back.
    """

    def visit_AugAssign(self, node: ast.AugAssign) -> Any:
        target = node.target
        if isinstance(target, ast.Name):
            return super().visit_AugAssign(node)
        node = self.node_contents_visit(node)
        target = node.target
        operator_text = ast.Constant(_OPERATOR_TEXT[type(node.op)])
        if isinstance(target, ast.Subscript):
            call = ast.Call(
                func=ast.Name("_inplace_item_", ast.Load()),
                args=[target.value, target.slice, operator_text, node.value],
                keywords=[],
            )
        elif isinstance(target, ast.Attribute):
            self.check_name(node, target.attr)
            call = ast.Call(
                func=ast.Name("_inplace_attribute_", ast.Load()),
                args=[target.value, ast.Constant(target.attr), operator_text, node.value],
                keywords=[],
            )
        else:  # pragma: no cover - the grammar allows nothing else
            self.error(node, "unsupported augmented assignment")
            return node
        statement = ast.Expr(value=call)
        ast.copy_location(statement, node)
        ast.fix_missing_locations(statement)
        return statement


_OPERATOR_TEXT = {
    ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=",
    ast.Mod: "%=", ast.Pow: "**=", ast.LShift: "<<=", ast.RShift: ">>=", ast.BitOr: "|=",
    ast.BitXor: "^=", ast.BitAnd: "&=", ast.MatMult: "@=",
}
class CompileFailure(Exception):
    """The learner's code does not compile, or the policy refuses it; carries a line number."""

    def __init__(self, message: str, line: int | None, refused: bool) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.refused = refused


def compile_learner(source: str, filename: str = LEARNER_FILENAME) -> Any:
    """Compile learner code under the policy; raise CompileFailure with a learner-facing text."""
    try:
        result = compile_restricted_exec(source, filename=filename, policy=LearnerTransformer)
    except SyntaxError as exc:  # raised directly by some parser errors
        raise CompileFailure(f"{exc.msg}", exc.lineno, refused=False) from None
    except (RecursionError, MemoryError):
        raise CompileFailure(
            "your code is nested too deeply for the compiler", None, refused=False
        ) from None
    except ValueError as exc:  # e.g. source with NUL bytes
        raise CompileFailure(str(exc), None, refused=False) from None
    except Exception as exc:  # noqa: BLE001 - any other compiler failure is still the learner's
        raise CompileFailure(f"{type(exc).__name__}: {exc}", None, refused=False) from None
    if result.errors:
        first = result.errors[0]
        line = _line_of(first)
        # IndentationError and TabError are SyntaxErrors too: a compile error, not a refusal.
        syntax = _strip_line_prefix(first).startswith(
            ("SyntaxError", "IndentationError", "TabError")
        )
        return_text = "; ".join(_strip_line_prefix(error) for error in result.errors[:3])
        raise CompileFailure(return_text, line, refused=not syntax)
    return result.code


def _line_of(error: str) -> int | None:
    # RestrictedPython formats errors as "Line 3: ..." (policy) or "Line 3: SyntaxError: ...".
    if error.startswith("Line "):
        head = error[5:].split(":", 1)[0]
        if head.isdigit():
            return int(head)
    return None


def _strip_line_prefix(error: str) -> str:
    if error.startswith("Line ") and ":" in error:
        return error.split(":", 1)[1].strip()
    return error
