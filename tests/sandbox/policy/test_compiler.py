"""What the compiler refuses beyond RestrictedPython's own rules."""

from __future__ import annotations

import pytest

from tests.sandbox.policy.learner import run


def test_special_methods_cannot_be_decorated() -> None:
    source = (
        "class F:\n    @staticmethod\n    def __float__():\n        return 1.0\n"
        "def f():\n    return 0\n"
    )
    with pytest.raises(Exception, match="cannot be decorated"):
        run(source)
