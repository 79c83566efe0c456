"""Compiling learner code: RestrictedPython's transformer, plus what learners write every day.

Compilation happens in the confined child (a compiler-crashing source crashes only that child);
the zygote compiles only the exercises' helpers, trusted code the same for every learner.
"""

from __future__ import annotations

import ast
from typing import Any

from RestrictedPython.compile import compile_restricted_exec
from RestrictedPython.transformer import ALLOWED_FUNC_NAMES, RestrictingNodeTransformer

from sandbox.policy import refusal
from sandbox.policy.attributes import BLOCKED_ATTRIBUTES
from sandbox.policy.imports import import_refused, learner_modules
from sandbox.policy.walk import CheaperWalk

LEARNER_FILENAME = "solution.py"
HELPERS_FILENAME = "helpers.py"


# Special methods a learner's class may never define, each with the reason it is told.
# CPython 3.11 compares list items through borrowed pointers (list_richcompare): a comparison
# that empties the list and answers NotImplemented has the reflected one called on a freed
# object (gh-120298), and sorts, searches and dict lookups run comparisons
# in the middle of C code too. A finaliser runs whenever the last reference goes, inside
# whatever C code dropped it. Without comparisons, a hash of one's own only breaks dicts.
REFUSED_SPECIAL_METHODS = {
    **dict.fromkeys(
        "__eq__ __ne__ __lt__ __le__ __gt__ __ge__".split(), refusal.comparison_refused
    ),
    "__hash__": refusal.hash_method_refused,
    "__del__": refusal.finalizer_refused,
}

# Special methods a learner's class may define, beyond RestrictedPython's own few (__init__,
# __contains__). Python calls them on the learner's own objects only, for operators, len(),
# iteration, printing; none changes how attributes are looked up (no __getattr__,
# __getattribute__, __setattr__), how classes are built (no __init_subclass__,
# __class_getitem__, __set_name__) or what pickling or descriptors do.
LEARNER_SPECIAL_METHODS = (ALLOWED_FUNC_NAMES - frozenset(REFUSED_SPECIAL_METHODS)) | frozenset(
    """
    __repr__ __str__ __format__ __len__ __iter__ __next__ __reversed__ __getitem__
    __setitem__ __delitem__ __bool__ __call__ __enter__ __exit__ __float__ __int__
    __neg__ __pos__ __abs__ __add__ __radd__ __iadd__ __sub__ __rsub__ __isub__ __mul__
    __rmul__ __imul__ __truediv__ __rtruediv__ __itruediv__ __floordiv__ __rfloordiv__
    __mod__ __rmod__ __pow__ __rpow__ __matmul__ __rmatmul__
    """.split()
)


def _first_yield(block: ast.AST) -> ast.AST | None:
    """The first yield within ``block``, not looking into the functions or classes it defines
    (their yields belong to other generators; ``yield from`` is refused everywhere)."""
    pending = list(ast.iter_child_nodes(block))
    while pending:
        node = pending.pop(0)
        if isinstance(node, ast.Yield):
            return node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))
    return None


class LearnerTransformer(CheaperWalk, RestrictingNodeTransformer):
    """RestrictedPython's transformer, widened to what learners write every day.

    - ``x[i] += 1`` and ``self.n += 1`` are rewritten into calls of guarded helpers that read,
      combine and write back (RestrictedPython refuses them);
    - annotated assignments (``kept: list[int] = []``) and ``nonlocal`` are allowed: their
      parts go through the same checks as any other code;
    - ``__name__`` may be read, so ``if __name__ == "__main__":`` works (it is "solution" here,
      so a learner's local test block does not run);
    - classes may define the special methods in ``LEARNER_SPECIAL_METHODS``, and call
      ``super().__init__(...)`` (the one '_' attribute allowed, on a super() call only);
    - imports are checked against the allowlist when compiling, so a forbidden one is refused
      with its line before anything runs (the import guard at run time stays, for depth).
    """

    def visit_Module(self, node: ast.Module) -> Any:
        # RestrictedPython puts its print collector after leading __future__ imports, but not
        # after a module docstring in front of them: the compiler then refuses the file.
        node = self.node_contents_visit(node)
        body, position = node.body, 0
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            position = 1
        while (
            position < len(body)
            and isinstance(body[position], ast.ImportFrom)
            and getattr(body[position], "module", None) == "__future__"
        ):
            position += 1
        self.inject_print_collector(node, position)
        return node

    def check_name(self, node: Any, name: str | None, allow_magic_methods: bool = False) -> None:
        if allow_magic_methods and name in REFUSED_SPECIAL_METHODS:
            reason = REFUSED_SPECIAL_METHODS[name]
            explained = self.__dict__.setdefault("_explained", set())
            # The reason once per kind (six comparisons would repeat one paragraph six times).
            text = refusal.special_method_refused(name) if reason in explained else reason(name)
            explained.add(reason)
            self.error(node, text)
            return
        if (
            allow_magic_methods
            and name in LEARNER_SPECIAL_METHODS
            and getattr(node, "col_offset", 0) != 0
        ):
            if name.startswith("__") and getattr(node, "decorator_list", None):
                # A decorated special method (@staticmethod) is called by C code that holds no
                # reference to the object it converts or compares: plain methods only.
                self.error(node, refusal.decorated_special_method(name))
            return
        super().check_name(node, name, allow_magic_methods)

    def visit_Try(self, node: ast.Try) -> Any:
        self._no_yield_in(node, "try")
        return super().visit_Try(node)

    def visit_With(self, node: ast.With) -> Any:
        self._no_yield_in(node, "with")
        return super().visit_With(node)

    def visit_YieldFrom(self, node: ast.YieldFrom) -> Any:
        # ``yield from it`` delegates to ``it``: dropping the suspended generator calls
        # ``it.close()``, the learner's method if ``it`` is a learner object, inside whatever
        # C code dropped the last reference (as a finaliser would run).
        self.error(node, refusal.YIELD_FROM_REFUSED)
        return self.node_contents_visit(node)

    def _no_yield_in(self, block: ast.Try | ast.With, kind: str) -> None:
        """Refuse a generator that can be suspended inside clean-up code:
        closing it, which its deallocation does wherever that happens, runs learner code."""
        found = _first_yield(block)
        if found is not None:
            self.error(found, refusal.yield_in_cleanup_refused(kind))

    def visit_Name(self, node: ast.Name) -> Any:
        if node.id == "__name__" and isinstance(node.ctx, ast.Load):
            return node
        return super().visit_Name(node)

    def visit_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.ctx, (ast.Store, ast.Del)) and node.attr in BLOCKED_ATTRIBUTES:
            # Refused to read on every object, so refused to write too: a C object's writable
            # ``obj`` (functools' KeyWrapper) freed what its C code still pointed at.
            self.error(node, refusal.attribute_refused(node.attr))
            return node
        value = node.value
        if (
            node.attr == "__init__"
            and isinstance(node.ctx, ast.Load)
            and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
        ):
            # _getattr_(super(...), '__init__'): the policy allows this name on super objects.
            call = ast.Call(
                func=ast.Name("_getattr_", ast.Load()),
                args=[self.visit(value), ast.Constant("__init__")],
                keywords=[],
            )
            ast.copy_location(call, node)
            return ast.fix_missing_locations(call)
        return super().visit_Attribute(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> Any:
        return self.node_contents_visit(node)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> Any:
        for name in node.names:
            self.check_name(node, name)
        return node

    def visit_Import(self, node: ast.Import) -> Any:
        for alias in node.names:
            self._check_module(node, alias.name)
        return super().visit_Import(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> Any:
        if node.level:
            self.error(node, refusal.RELATIVE_IMPORT)
        elif node.module is not None:
            self._check_module(node, node.module)
        return super().visit_ImportFrom(node)

    def _check_module(self, node: ast.AST, module: str) -> None:
        if module not in learner_modules():
            self.error(node, import_refused(module))

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
    ast.Add: "+=",
    ast.Sub: "-=",
    ast.Mult: "*=",
    ast.Div: "/=",
    ast.FloorDiv: "//=",
    ast.Mod: "%=",
    ast.Pow: "**=",
    ast.LShift: "<<=",
    ast.RShift: ">>=",
    ast.BitOr: "|=",
    ast.BitXor: "^=",
    ast.BitAnd: "&=",
    ast.MatMult: "@=",
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


# RestrictedPython's ending for a syntax error whose source line the parser did not give (a
# NUL byte in the source): "None" is no statement a learner could look for.
_NO_STATEMENT = " at statement: None"


def _strip_line_prefix(error: str) -> str:
    if error.endswith(_NO_STATEMENT):
        error = error[: -len(_NO_STATEMENT)]
    if error.startswith("Line ") and ":" in error:
        return error.split(":", 1)[1].strip()
    return error
