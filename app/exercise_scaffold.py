"""`judge exercises new ID`: a new exercise folder that already loads, for an author to edit.

The folder holds every required file with a small worked exercise in it (the largest of a list
of numbers), so that `judge exercises regen ID` and `judge exercises check ID` pass on it at once
and the author changes one thing at a time from a folder that works.
"""

from __future__ import annotations

import json
from pathlib import Path

from app.catalog import ID_PATTERN

TOML = """title = "{title}"
section = "My section"
difficulty = "easy"
order = 100
summary = "One line for the exercise list."
entry_point = "largest"
returns = "int"
hints = [
    "A nudge first: look at each number once.",
    "Keep the largest seen so far, starting from the first number.",
    "Compare each later number with it and replace it when the new one is larger.",
]

[parameters]
values = "list"

[limits]
time_ms = 1000
memory_mb = 256
"""

STATEMENT = """## The task

Write `largest(values)`: return the largest of a non-empty list of integers.

For $n$ numbers $v_1, \\dots, v_n$ the answer is $\\max_i v_i$.
"""

STARTER = '''def largest(values):
    """The largest of a non-empty list of integers."""
    # TODO: look at every number.
    return 0
'''

SOLUTION = """def largest(values):
    best = values[0]
    for value in values[1:]:
        if value > best:
            best = value
    return best
"""

CASES = [
    ("one number", [7]),
    ("the largest first", [9, 2, 3]),
    ("the largest last", [1, 2, 30]),
    ("negative numbers only", [-5, -2, -9]),
    ("a tie for the largest", [4, 8, 8, 1]),
    ("a long list", list(range(-20, 21, 3))),
]

CORRECT = """def largest(values):
    return max(values)
"""

WRONG = """# expect: wrong_answer negative numbers only
def largest(values):
    best = 0
    for value in values:
        best = max(best, value)
    return best
"""


def scaffold(root: Path, exercise_id: str) -> Path:
    """Write ``root/exercise_id`` (ValueError naming the problem: a bad id, a folder that is
    already there)."""
    if not ID_PATTERN.match(exercise_id):
        raise ValueError(
            f"{exercise_id!r} is not an exercise id: lowercase letters, digits and single dashes "
            "(e.g. my-first-exercise)"
        )
    folder = root / exercise_id
    if folder.exists():
        raise ValueError(f"{folder} already exists")
    if not root.is_dir():
        raise ValueError(f"{root} is not a folder")
    folder.mkdir()
    title = exercise_id.replace("-", " ").capitalize()
    files = {
        "exercise.toml": TOML.format(title=title),
        "statement.md": STATEMENT,
        "starter.py": STARTER,
        "solution.py": SOLUTION,
        "cases.json": _cases_json(),
        "solutions/correct_builtin_max.py": CORRECT,
        "solutions/wrong_starts_at_zero.py": WRONG,
    }
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def _cases_json() -> str:
    """Six cases with their expected outputs left for `judge exercises regen` to fill in."""
    cases = [{"name": name, "input": {"values": values}, "expected": {}} for name, values in CASES]
    return json.dumps(cases, indent=2) + "\n"
