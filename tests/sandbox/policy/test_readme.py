"""The policy's map (sandbox/policy/README.md) stays true: every module is on it, every file and
test it names exists, every invariant names where it is decided and what attacks it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import sandbox.policy

REPO = Path(__file__).resolve().parents[3]
PACKAGE = REPO / "sandbox" / "policy"
README = (PACKAGE / "README.md").read_text()


def sections() -> dict[str, str]:
    """The invariants: title -> text, from the '### ' headings under '## Invariants'."""
    invariants = README.split("## Invariants", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", invariants, flags=re.MULTILINE)[1:]
    return dict(zip(parts[::2], parts[1::2], strict=True))


def test_every_module_of_the_package_is_on_the_map() -> None:
    listed = set(re.findall(r"^\| `(\w+\.py)` \|", README, flags=re.MULTILINE))
    modules = {path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py"}
    assert listed == modules


def test_every_named_test_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", README)
    assert len(named) >= 20, named
    for path, test in named:
        tree = ast.parse((REPO / path).read_text())
        tests = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
        assert test in tests, f"{path}::{test} is not a test"


def test_every_named_module_exists() -> None:
    for path in re.findall(r"`(sandbox/[\w/]+\.py)`", README):
        assert (REPO / path).is_file(), path


def test_every_invariant_says_where_it_is_decided_and_what_attacks_it() -> None:
    found = sections()
    assert len(found) >= 10, list(found)
    for title, text in found.items():
        if "\n- Checked by: " in text:  # what must keep working, rather than a refusal
            decided = ""
        else:
            assert "\n- Decided in: " in text and "\n- Attacked by: " in text, title
            decided = text.split("\n- Decided in: ", 1)[1].split("\n- Attacked by: ", 1)[0]
            assert "`sandbox/policy/" in decided, f"{title}: decided nowhere in the package"
        assert re.search(r"`tests/[\w/]+\.py::\w+`", text.replace(decided, "")), title


def test_the_public_names_it_lists_are_the_packages() -> None:
    line = README.split("imports only `sandbox.policy`:", 1)[1].split("\n\n", 1)[0]
    assert sorted(re.findall(r"`(\w+)`", line)) == sorted(sandbox.policy.__all__)


def test_the_object_array_rule_is_decided_in_one_module() -> None:
    # Other modules ask object_arrays; none tests for Python objects itself (copying's test is
    # of an array it has just made, to fill it).
    for path in PACKAGE.glob("*.py"):
        if path.name in ("object_arrays.py", "copying.py"):
            continue
        assert "hasobject" not in path.read_text(), path.name
