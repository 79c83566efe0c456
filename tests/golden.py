"""The golden submissions, wherever an exercise keeps them: beside it
(``exercises/<id>/solutions/``) or in the repository's ``tests/solutions/<id>/``."""

from __future__ import annotations

from pathlib import Path

from app.catalog import EXERCISES_DIR

REPOSITORY = Path(__file__).parent / "solutions"


def files(pattern: str) -> list[Path]:
    """Every golden file matching ``pattern`` (e.g. ``correct_*.py``), sorted by exercise."""
    found = list(REPOSITORY.glob(f"*/{pattern}")) + list(
        EXERCISES_DIR.glob(f"*/solutions/{pattern}")
    )
    return sorted(found, key=lambda p: (exercise_of(p), p.name))


def exercise_of(path: Path) -> str:
    """The id of the exercise a golden file belongs to."""
    return path.parent.parent.name if path.parent.name == "solutions" else path.parent.name


def folder_of(exercise_id: str) -> list[Path]:
    """The folders that may hold an exercise's golden files."""
    return [REPOSITORY / exercise_id, EXERCISES_DIR / exercise_id / "solutions"]


def of(exercise_id: str, pattern: str) -> list[Path]:
    """One exercise's golden files matching ``pattern``."""
    return sorted(p for folder in folder_of(exercise_id) for p in folder.glob(pattern))


def name(path: Path) -> str:
    """A test id: ``<exercise>/<stem>``."""
    return f"{exercise_of(path)}/{path.stem}"
