"""The code's comments and docstrings say why, never how long: timings live in
docs/performance.md, where they can be dated and measured again (a figure in a comment goes
stale silently as the machine and the code change)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from tests.probe import REPO

# A number with a unit of time ("~1.2 ms", "0.3 s", "5 µs") or a speed-up factor ("30x").
TIMING = re.compile(r"\d(?:[\d.,]*\d)?\s?(?:ms|µs|us|ns|s)\b|\b\d+(?:\.\d+)?x\b")
PACKAGES = ("app", "sandbox")


def _prose(source: str) -> list[tuple[int, str]]:
    """Each comment and each line of a docstring, with its line number."""
    lines = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    for node in ast.walk(ast.parse(source)):
        docstring = ast.get_docstring(node, clean=False) if isinstance(node, kinds) else None
        if docstring:
            first = node.body[0].lineno
            lines += [(first + i, line) for i, line in enumerate(docstring.splitlines())]
    return lines


def test_no_timing_in_a_comment_or_docstring() -> None:
    files = [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))]
    assert len(files) > 40, "found too few modules"
    found = [
        f"{path.relative_to(REPO)}:{number}: {text.strip()}"
        for path in files
        for number, text in _prose(path.read_text())
        if TIMING.search(text)
    ]
    assert not found, "timings belong in docs/performance.md:\n" + "\n".join(found)


def test_a_timing_is_caught_and_plain_numbers_are_not() -> None:
    source = '''"""Starts the zygote (~0.3 s)."""
# copying is ~1 us, rebuilding 7 µs; 34 rows took 1.2 ms; its bookkeeping cost 30x the step
def f():
    """Fifteen checks, 500 trials, the 95% quantile, 1e308 x 2, time_ms."""
'''
    flagged = [number for number, text in _prose(source) if TIMING.search(text)]
    assert sorted(flagged) == [1, 2]


# A review round's number tells a later reader nothing: a test and a comment name the attack.
ROUND = re.compile(r"\bround\s*\d+|\bthe round's\b", re.IGNORECASE)


def test_tests_and_comments_name_the_attack_not_the_round() -> None:
    named = [path.name for path in (REPO / "tests").rglob("*.py") if ROUND.search(path.stem)]
    assert not named, f"named after a round, not what they test: {named}"
    # tests/solutions/ holds learners' submissions (some do not even compile), not our prose.
    files = [
        path
        for folder in (*PACKAGES, "tests")
        for path in (REPO / folder).rglob("*.py")
        if "solutions" not in path.relative_to(REPO).parts
    ]
    cited = [
        f"{path.relative_to(REPO)}:{number}: {text.strip()}"
        for path in files
        for number, text in _prose(path.read_text())
        if ROUND.search(text)
    ]
    assert not cited, "\n".join(cited)
