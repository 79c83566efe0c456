"""What the compiler refuses beyond RestrictedPython's own rules."""

from __future__ import annotations

import pytest

from sandbox.policy.compiler import CompileFailure, compile_learner
from tests.sandbox.policy.learner import run


def test_special_methods_cannot_be_decorated() -> None:
    source = (
        "class F:\n    @staticmethod\n    def __float__():\n        return 1.0\n"
        "def f():\n    return 0\n"
    )
    with pytest.raises(Exception, match="cannot be decorated"):
        run(source)


def test_a_syntax_error_without_a_source_line_names_no_none() -> None:
    """A NUL byte: the parser gives no line, and RestrictedPython's sentence ended "at
    statement: None"."""
    with pytest.raises(CompileFailure) as caught:
        compile_learner("def f():\n    return 0\x00\n")
    assert caught.value.message == "SyntaxError: source code string cannot contain null bytes"
    with pytest.raises(CompileFailure) as caught:
        compile_learner("x = (\n")
    assert caught.value.message == "SyntaxError: '(' was never closed at statement: 'x = ('"
