"""A theory page shared by several exercises: one copy, named by the others' `theory` key, and
confined to the exercises root (an author's slip that leads elsewhere is refused naming it)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from app.catalog import EXERCISES_DIR, Catalog, ExerciseError, load_exercise
from app.exercise_scaffold import scaffold
from app.theory import CODE_FILE, MARKDOWN_FILE

PAGE = "# Why it works\n\nBecause $a + b = b + a$.\n"


def test_no_two_exercise_folders_hold_the_same_theory_page() -> None:
    pages = [
        path for name in (CODE_FILE, MARKDOWN_FILE) for path in EXERCISES_DIR.glob(f"*/{name}")
    ]
    digests = [hashlib.sha256(path.read_bytes()).hexdigest() for path in pages]
    copies = [
        path for path, digest in zip(pages, digests, strict=True) if digests.count(digest) > 1
    ]
    assert copies == [], "copied theory pages: name one with `theory = ...` instead"


def test_an_exercise_that_names_a_shared_page_shows_it() -> None:
    catalog = Catalog.load()
    sharing = [
        e for e in catalog if not any((e.folder / n).exists() for n in (CODE_FILE, MARKDOWN_FILE))
    ]
    shown = [e for e in sharing if e.theory is not None]
    assert shown, "no exercise shares a theory page"
    for exercise in shown:
        owners = [o for o in catalog if o is not exercise and o.theory == exercise.theory]
        assert any(
            (o.folder / CODE_FILE).exists() or (o.folder / MARKDOWN_FILE).exists() for o in owners
        )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Two scaffolds, ``owner`` holding a theory page and ``sharer`` about to name it."""
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    scaffold(exercises, "owner")
    scaffold(exercises, "sharer")
    (exercises / "owner" / MARKDOWN_FILE).write_text(PAGE)
    return exercises


def _name(folder: Path, value: str) -> None:
    toml = folder / "exercise.toml"
    toml.write_text(f"theory = {value}\n" + toml.read_text())


def test_a_named_page_is_the_owners_page(root: Path) -> None:
    _name(root / "sharer", f'"../owner/{MARKDOWN_FILE}"')
    catalog = Catalog.load(root)
    sharer, owner = catalog.get("sharer"), catalog.get("owner")
    assert sharer is not None and owner is not None
    assert (
        sharer.theory
        == owner.theory
        == {
            "title": "Why it works",
            "blocks": [{"markdown": "\nBecause $a + b = b + a$."}],
        }
    )


def _outside(root: Path) -> str:
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / CODE_FILE).write_text("raise SystemExit('ran code from outside')\n")
    return '"../../elsewhere/theory.py"'


def _linked_out(root: Path) -> str:
    _outside(root)
    (root / "owner" / "linked").mkdir()
    os.symlink(root.parent / "elsewhere" / CODE_FILE, root / "owner" / "linked" / CODE_FILE)
    return '"../owner/linked/theory.py"'


MISTAKES = {
    "leads out of the root": (_outside, r"'theory' = '\.\./\.\./elsewhere/theory.py' leads out"),
    "a link that leads out": (_linked_out, r"leads out of the exercise folders"),
    "the root itself": (lambda root: '"../theory.md"', r"leads out of the exercise folders"),
    "absolute": (
        lambda root: f'"{root / "owner" / MARKDOWN_FILE}"',
        r"'theory' must be a relative path to a theory.py or theory.md",
    ),
    "not a theory file": (
        lambda root: '"../owner/solution.py"',
        r"'theory' must be a relative path to a theory.py or theory.md, got '../owner/solution.py'",
    ),
    "missing": (
        lambda root: '"../owner/theory.py"',
        r"'theory' = '../owner/theory.py': no such file",
    ),
    "not a path": (lambda root: "3", r"'theory' must be a path such as"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_a_bad_theory_key_is_refused_naming_the_folder(root: Path, mistake: str) -> None:
    value, words = MISTAKES[mistake]
    sharer = root / "sharer"
    _name(sharer, value(root))
    with pytest.raises(ExerciseError, match=words) as caught:
        load_exercise(sharer)
    assert str(sharer / "exercise.toml") in str(caught.value)


def test_a_folder_that_names_a_page_and_holds_one_is_refused(root: Path) -> None:
    sharer = root / "sharer"
    (sharer / MARKDOWN_FILE).write_text(PAGE)
    _name(sharer, f'"../owner/{MARKDOWN_FILE}"')
    with pytest.raises(ExerciseError, match="names a shared page, but the folder holds theory.md"):
        load_exercise(sharer)
