"""Finds the exercise folders under ``exercises/`` and validates each one at start-up.

An exercise is data: ``exercise.toml`` (metadata, signature, grading conventions, hints),
``statement.md``, ``starter.py``, ``solution.py``, ``cases.json`` and optionally ``helpers.py``,
``extra_cases.json`` (Submit's stored edge cases) and ``case_generator.py`` (Submit's random
cases, trusted code). The folder format is documented in ``exercises/README.md``. Here:
exercise.toml's rules and the catalog; the case files are app/case_files.py's, the model
app/exercise.py's (both named here too, as the rest of the judge imports them from here).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Container
from pathlib import Path
from typing import Any

from app.case_files import (
    DEFAULT_RANDOM_CASES,
    MAX_RANDOM_CASES,
    finite,
    load_cases,
    load_generator,
    random_case_count,
    read_text,
    require,
)
from app.exercise import Case, Exercise, ExerciseError, RandomCase
from app.exercise_keys import unknown_key_problem
from app.grading import (
    CapsError,
    Tolerance,
    load_check,
    load_sampler,
    parse_type,
    read_caps,
)
from app.theory import load_theory
from sandbox import Limits, RandomMode

__all__ = [
    "CASES_PER_EXERCISE",
    "DEFAULT_RANDOM_CASES",
    "EXERCISES_DIR",
    "ID_PATTERN",
    "MAX_RANDOM_CASES",
    "Case",
    "Catalog",
    "Exercise",
    "ExerciseError",
    "RandomCase",
    "load_cases",
    "load_exercise",
]

EXERCISES_DIR = Path(__file__).resolve().parent.parent / "exercises"
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
PARAMETER_KINDS = ("value", "list", "ndarray", "rng")
RANDOM_MODES = tuple(mode.value for mode in RandomMode)
DIFFICULTIES = ("easy", "medium", "hard")
CASES_PER_EXERCISE = 6


def load_exercise(folder: Path) -> Exercise:
    """Load and validate one exercise folder; raises ExerciseError naming what is wrong."""
    meta_path = folder / "exercise.toml"
    try:
        meta = tomllib.loads(read_text(meta_path))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{meta_path}: not valid TOML ({exc})") from exc

    exercise_id = folder.name
    require(bool(ID_PATTERN.match(exercise_id)), folder, "folder name must be a lowercase slug")
    unknown = unknown_key_problem(meta)
    require(unknown is None, meta_path, str(unknown))
    for key in ("title", "section", "difficulty", "summary", "entry_point", "returns"):
        require(
            isinstance(meta.get(key), str) and bool(meta[key].strip()),
            meta_path,
            f"'{key}' must be a non-empty string",
        )
    require(
        meta["difficulty"] in DIFFICULTIES, meta_path, f"difficulty must be one of {DIFFICULTIES}"
    )
    require(meta["entry_point"].isidentifier(), meta_path, "entry_point must be an identifier")
    try:
        parse_type(meta["returns"])
    except ValueError as exc:
        raise ExerciseError(f"{meta_path}: returns: {exc}") from None

    parameters: dict[str, str] = meta.get("parameters")  # type: ignore[assignment]
    require(
        isinstance(parameters, dict) and bool(parameters),
        meta_path,
        "[parameters] must map each argument name to its kind",
    )
    for name, kind in parameters.items():
        require(name.isidentifier(), meta_path, f"parameter {name!r} is not an identifier")
        require(
            kind in PARAMETER_KINDS,
            meta_path,
            f"parameter {name!r}: kind must be one of {PARAMETER_KINDS}",
        )

    random = meta.get("random", {"mode": "none"})
    mode = random.get("mode", "none")
    require(mode in RANDOM_MODES, meta_path, f"[random] mode must be one of {RANDOM_MODES}")
    argument = random.get("argument")
    if mode == "generator":
        require(
            parameters.get(argument) == "rng",
            meta_path,
            "[random] mode 'generator' needs 'argument' naming an rng parameter",
        )

    hints: list[str] = meta.get("hints")  # type: ignore[assignment]
    require(
        isinstance(hints, list)
        and 3 <= len(hints) <= 5
        and all(isinstance(h, str) and h.strip() for h in hints),
        meta_path,
        "'hints' must be a list of 3 to 5 non-empty strings",
    )
    related = meta.get("related", [])
    require(
        isinstance(related, list) and all(isinstance(r, str) for r in related),
        meta_path,
        "'related' must be a list of exercise ids",
    )

    raw_limits = meta.get("limits", {})
    try:
        limits = Limits(**raw_limits)
    except (TypeError, ValueError) as exc:
        # The sandbox names its own class ("Limits.time_ms must be..."): the author wrote a key.
        words = (
            str(exc)
            .removeprefix("Limits.")
            .replace("__init__() got an unexpected keyword argument", "unknown key")
        )
        raise ExerciseError(f"{meta_path}: [limits] {words}") from exc

    return_names = meta.get("return_names", [])
    require(
        isinstance(return_names, list) and all(isinstance(n, str) for n in return_names),
        meta_path,
        "'return_names' must be a list of strings",
    )
    feedback = meta.get("feedback", {})
    require(
        isinstance(feedback, dict)
        and set(feedback) <= {"extra", "missing", "differs", "empty"}
        and all(isinstance(v, str) for v in feedback.values()),
        meta_path,
        "[feedback] may only set the strings extra, missing, differs and empty",
    )

    compare = meta.get("compare", {})
    allow_nonfinite = isinstance(compare, dict) and compare.get("allow_nonfinite", False)
    require(
        type(allow_nonfinite) is bool, meta_path, "[compare] allow_nonfinite must be true or false"
    )
    if isinstance(compare, dict):
        compare = {key: value for key, value in compare.items() if key != "allow_nonfinite"}
    tolerance = _load_tolerance(compare, meta_path)

    cases = load_cases(folder / "cases.json", parameters, len(hints))
    require(
        len(cases) == CASES_PER_EXERCISE,
        folder / "cases.json",
        f"must hold exactly {CASES_PER_EXERCISE} cases, found {len(cases)}",
    )
    helpers_path = folder / "helpers.py"
    trace_path = folder / "trace.py"
    extra_path = folder / "extra_cases.json"
    extra_cases = (
        load_cases(extra_path, parameters, len(hints), "extra") if extra_path.exists() else ()
    )
    clash = {case.name for case in cases} & {case.name for case in extra_cases}
    require(not clash, extra_path, f"case names already used in cases.json: {sorted(clash)}")
    random_case = load_generator(folder / "case_generator.py", parameters)
    random_cases = random_case_count(meta.get("submit", {}), meta_path, random_case)
    try:
        input_caps = read_caps(meta.get("custom", {}), parameters)
    except CapsError as error:
        raise ExerciseError(f"{meta_path}: {error}") from None

    order = meta.get("order", 0)
    require(type(order) is int, meta_path, "'order' must be an integer")
    if not allow_nonfinite:
        for path, group in ((folder / "cases.json", cases), (extra_path, extra_cases)):
            for case in group:
                require(
                    finite(case.expected.get("value")),
                    path,
                    f"case {case.name!r}: the expected value holds nan or infinity; set [compare] "
                    "allow_nonfinite = true if the exercise means it",
                )
    statement = read_text(folder / "statement.md")
    require(bool(statement.strip()), folder / "statement.md", "the statement is empty")
    try:
        distribution = load_check(meta.get("distribution"), folder, len(hints))
        sampler = load_sampler(
            meta.get("sampler"),
            folder,
            entry_point=meta["entry_point"],
            parameters=parameters,
            returns=meta["returns"],
            random_argument=argument,
            hint_count=len(hints),
        )
        theory = load_theory(folder, meta.get("theory"))
        if distribution is not None and sampler is not None:
            raise ValueError(
                "declare one check over the whole function: [distribution] or [sampler]"
            )
        if trace_path.exists():
            compile(read_text(trace_path), str(trace_path), "exec")
    except (ValueError, SyntaxError) as exc:
        raise ExerciseError(f"{meta_path}: {exc}") from None
    return Exercise(
        id=exercise_id,
        folder=folder,
        title=meta["title"],
        section=meta["section"],
        difficulty=meta["difficulty"],
        summary=meta["summary"],
        entry_point=meta["entry_point"],
        returns=meta["returns"],
        parameters=dict(parameters),
        random_mode=RandomMode(mode),
        random_argument=argument,
        statement=statement,
        starter_code=read_text(folder / "starter.py"),
        solution_code=read_text(folder / "solution.py"),
        helpers_code=read_text(helpers_path) if helpers_path.exists() else "",
        hints=tuple(hints),
        related=tuple(related),
        cases=cases,
        limits=limits,
        return_names=tuple(return_names),
        feedback=dict(feedback),
        order=order,
        tolerance=tolerance,
        extra_cases=extra_cases,
        random_case=random_case,
        random_cases=random_cases,
        input_caps=input_caps,
        trace_code=read_text(trace_path) if trace_path.exists() else "",
        distribution=distribution,
        sampler=sampler,
        allow_nonfinite=allow_nonfinite,
        theory=theory,
    )


def _load_tolerance(raw: Any, meta_path: Path) -> Tolerance:
    """``[compare]``: how close a returned float must be to the reference's (default exact)."""
    require(
        isinstance(raw, dict) and set(raw) <= {"rel_tol", "abs_tol"},
        meta_path,
        "[compare] may only set the numbers rel_tol and abs_tol",
    )
    try:
        return Tolerance(**raw)
    except ValueError as exc:
        raise ExerciseError(f"{meta_path}: [compare] {exc}") from None


def _exercise_folders(root: Path) -> list[Path]:
    """The folders under ``root`` that hold an exercise.toml."""
    try:
        return [p for p in root.iterdir() if (p / "exercise.toml").is_file()]
    except OSError as exc:  # no such folder, a file, unreadable: the operator's one line
        raise ExerciseError(f"{root}: not a folder of exercises ({exc.strerror})") from None


def _listed(exercise: Exercise) -> tuple[int, str]:
    """The catalog's order: by ``order``, then by id."""
    return exercise.order, exercise.id


def _related_problem(exercise: Exercise, present: Container[str], root: Path) -> str | None:
    """An exercise ``related`` names that is not among ``present``, in words."""
    for other in exercise.related:
        if other not in present:
            return (
                f"{exercise.folder / 'exercise.toml'}: related exercise {other!r} not found "
                f"in {root}"
            )
    return None


class Catalog:
    """Every exercise under one folder, loaded once and looked up by id."""

    def __init__(self, exercises: dict[str, Exercise]) -> None:
        self._exercises = exercises

    @classmethod
    def load(cls, root: Path = EXERCISES_DIR) -> Catalog:
        """Every exercise under ``root``, or an ExerciseError at the first broken folder."""
        loaded = sorted(map(load_exercise, _exercise_folders(root)), key=_listed)
        exercises = {exercise.id: exercise for exercise in loaded}  # listed in this order
        for exercise in exercises.values():
            problem = _related_problem(exercise, exercises, root)
            if problem is not None:
                raise ExerciseError(problem)
        return cls(exercises)

    @classmethod
    def load_each(cls, root: Path = EXERCISES_DIR) -> tuple[Catalog, dict[Path, str]]:
        """Each folder under ``root`` loaded on its own (`judge exercises check`): the sound
        exercises, and what is wrong with each broken folder. ``load`` stops at the first."""
        folders = sorted(_exercise_folders(root))
        loaded, broken = [], {}
        for folder in folders:
            try:
                loaded.append(load_exercise(folder))
            except (ValueError, OSError) as exc:  # ExerciseError is a ValueError
                broken[folder] = str(exc)
        # A relation to a broken folder is not a second problem: that folder is reported.
        present = {folder.name for folder in folders}
        exercises = {}
        for exercise in sorted(loaded, key=_listed):
            problem = _related_problem(exercise, present, root)
            if problem is None:
                exercises[exercise.id] = exercise
            else:
                broken[exercise.folder] = problem
        return cls(exercises), broken

    def get(self, exercise_id: str) -> Exercise | None:
        return self._exercises.get(exercise_id)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._exercises.values())

    def __len__(self) -> int:
        return len(self._exercises)
