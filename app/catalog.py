"""Finds the exercise folders under ``exercises/`` and validates each one at start-up.

An exercise is data: ``exercise.toml`` (metadata, signature, grading conventions, hints),
``statement.md``, ``starter.py``, ``solution.py``, ``cases.json`` and optionally ``helpers.py``,
``extra_cases.json`` (Submit's stored edge cases) and ``case_generator.py`` (Submit's random
cases, trusted code). The folder format is documented in ``exercises/README.md``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.exercise_keys import unknown_key_problem
from app.grading import (
    EXACT,
    CapsError,
    DistributionCheck,
    InputCaps,
    SamplerCheck,
    Tolerance,
    load_check,
    load_sampler,
    parse_type,
    read_caps,
)
from app.theory import load_theory
from sandbox import Job, Limits, RandomMode

EXERCISES_DIR = Path(__file__).resolve().parent.parent / "exercises"
ID_PATTERN = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
PARAMETER_KINDS = ("value", "list", "ndarray", "rng")
RANDOM_MODES = tuple(mode.value for mode in RandomMode)
DIFFICULTIES = ("easy", "medium", "hard")
CASES_PER_EXERCISE = 6
DEFAULT_RANDOM_CASES = 20
MAX_RANDOM_CASES = 200
RandomCase = Callable[[np.random.Generator], dict[str, Any]]


class ExerciseError(ValueError):
    """An exercise folder that does not follow the format; the message names the file."""


@dataclass(frozen=True)
class Case:
    name: str
    input: dict[str, Any]
    expected: dict[str, Any]
    hint: int | None = None  # the 1-based hint addressing the mistake this case catches
    group: str = "example"  # example | extra | random | custom (the report's test groups)
    # Set when the reference itself could not run this input (a random or custom case): the
    # learner's result is then shown without a verdict on it.
    reference_problem: str | None = None


@dataclass(frozen=True)
class Exercise:
    id: str
    folder: Path
    title: str
    section: str
    difficulty: str
    summary: str
    entry_point: str
    returns: str
    parameters: dict[str, str]
    random_mode: RandomMode
    random_argument: str | None
    statement: str
    starter_code: str
    solution_code: str
    helpers_code: str
    hints: tuple[str, ...]
    related: tuple[str, ...]
    cases: tuple[Case, ...]
    limits: Limits = field(default_factory=Limits)
    return_names: tuple[str, ...] = ()
    feedback: dict[str, str] = field(default_factory=dict)
    order: int = 0
    extra_cases: tuple[Case, ...] = ()
    random_case: RandomCase | None = None
    random_cases: int = 0
    input_caps: InputCaps = field(default_factory=InputCaps)
    tolerance: Tolerance = EXACT
    trace_code: str = ""  # trace.py: the reference's steps, for feedback at a divergence
    distribution: DistributionCheck | None = None  # [distribution]: the check run on Submit
    sampler: SamplerCheck | None = None  # [sampler]: the token-law check run on Submit
    theory: dict[str, Any] | None = None  # theory.md or theory.py: the page under the statement
    allow_nonfinite: bool = False  # [compare] allow_nonfinite: nan or inf may be expected

    def case_inputs(self) -> list[dict[str, Any]]:
        """The inputs only: the part of each case that may cross into the sandbox."""
        return [case.input for case in self.cases]

    def job(
        self, code: str, inputs: list[dict[str, Any]] | None = None, *, with_trace: bool = False
    ) -> Job:
        """What the sandbox gets to run ``code`` on: case inputs (the examples unless ``inputs``
        says otherwise), never what is expected of them.

        ``with_trace`` (reference jobs only) also runs the exercise's trusted trace function.
        """
        return Job(
            code=code,
            entry_point=self.entry_point,
            cases=tuple(self.case_inputs() if inputs is None else inputs),
            parameters=self.parameters,
            limits=self.limits,
            random_mode=self.random_mode,
            rng_argument=self.random_argument,
            helpers=self.helpers_code,
            trace=self.trace_code if with_trace else "",
        )

    def reference_job(self, inputs: list[dict[str, Any]], *, traced: bool = True) -> Job:
        """The reference solution on ``inputs`` as trusted code: plain Python in a confined
        child of its own (the learner policy's guards would only slow it down). ``traced``
        also runs the trace, for the feedback at a learner's first divergence (it was nearly
        half of the job's CPU on a Submit's random cases, which a correct step never diverges
        on)."""
        return dataclasses.replace(
            self.job(self.solution_code, inputs, with_trace=traced), trusted=True
        )


def _require(condition: bool, where: Path, message: str) -> None:
    if not condition:
        raise ExerciseError(f"{where}: {message}")


def _read_text(path: Path) -> str:
    _require(path.is_file(), path, "missing file")
    return path.read_text(encoding="utf-8")


def load_cases(
    path: Path, parameters: dict[str, str], hint_count: int | None = None, group: str = "example"
) -> tuple[Case, ...]:
    """Read ``cases.json`` (or ``extra_cases.json``, whose cases may name a ``hint`` among
    ``hint_count``): a list of ``{name, input, expected}`` objects."""
    try:
        raw = json.loads(_read_text(path))
    except json.JSONDecodeError as exc:
        raise ExerciseError(f"{path}: not valid JSON ({exc})") from exc
    _require(isinstance(raw, list), path, "must hold a JSON list of cases")
    cases = []
    for position, item in enumerate(raw, start=1):
        where = f"case {position}"
        _require(isinstance(item, dict), path, f"{where} must be an object")
        allowed = {"name", "input", "expected"} | ({"hint"} if hint_count is not None else set())
        _require(set(item) <= allowed, path, f"{where} has unknown keys")
        name = item.get("name")
        _require(isinstance(name, str) and bool(name.strip()), path, f"{where} needs a name")
        inputs = item.get("input")
        _require(isinstance(inputs, dict), path, f"{where} ({name}) needs an input object")
        _require(
            list(inputs) == list(parameters),
            path,
            f"{where} ({name}) input keys {list(inputs)} must be the parameters "
            f"{list(parameters)}, in order",
        )
        expected = item.get("expected", {})
        _require(isinstance(expected, dict), path, f"{where} ({name}) expected must be an object")
        hint = item.get("hint")
        if hint is not None:
            _require(
                type(hint) is int and 1 <= hint <= (hint_count or 0),
                path,
                f"{where} ({name}) hint must be a hint number from 1 to {hint_count}",
            )
        cases.append(Case(name=name, input=inputs, expected=expected, hint=hint, group=group))
    names = [case.name for case in cases]
    _require(len(set(names)) == len(names), path, "case names must be unique")
    return tuple(cases)


def load_exercise(folder: Path) -> Exercise:
    """Load and validate one exercise folder; raises ExerciseError naming what is wrong."""
    meta_path = folder / "exercise.toml"
    try:
        meta = tomllib.loads(_read_text(meta_path))
    except tomllib.TOMLDecodeError as exc:
        raise ExerciseError(f"{meta_path}: not valid TOML ({exc})") from exc

    exercise_id = folder.name
    _require(bool(ID_PATTERN.match(exercise_id)), folder, "folder name must be a lowercase slug")
    unknown = unknown_key_problem(meta)
    _require(unknown is None, meta_path, str(unknown))
    for key in ("title", "section", "difficulty", "summary", "entry_point", "returns"):
        _require(
            isinstance(meta.get(key), str) and bool(meta[key].strip()),
            meta_path,
            f"'{key}' must be a non-empty string",
        )
    _require(
        meta["difficulty"] in DIFFICULTIES, meta_path, f"difficulty must be one of {DIFFICULTIES}"
    )
    _require(meta["entry_point"].isidentifier(), meta_path, "entry_point must be an identifier")
    try:
        parse_type(meta["returns"])
    except ValueError as exc:
        raise ExerciseError(f"{meta_path}: returns: {exc}") from None

    parameters: dict[str, str] = meta.get("parameters")  # type: ignore[assignment]
    _require(
        isinstance(parameters, dict) and bool(parameters),
        meta_path,
        "[parameters] must map each argument name to its kind",
    )
    for name, kind in parameters.items():
        _require(name.isidentifier(), meta_path, f"parameter {name!r} is not an identifier")
        _require(
            kind in PARAMETER_KINDS,
            meta_path,
            f"parameter {name!r}: kind must be one of {PARAMETER_KINDS}",
        )

    random = meta.get("random", {"mode": "none"})
    mode = random.get("mode", "none")
    _require(mode in RANDOM_MODES, meta_path, f"[random] mode must be one of {RANDOM_MODES}")
    argument = random.get("argument")
    if mode == "generator":
        _require(
            parameters.get(argument) == "rng",
            meta_path,
            "[random] mode 'generator' needs 'argument' naming an rng parameter",
        )

    hints: list[str] = meta.get("hints")  # type: ignore[assignment]
    _require(
        isinstance(hints, list)
        and 3 <= len(hints) <= 5
        and all(isinstance(h, str) and h.strip() for h in hints),
        meta_path,
        "'hints' must be a list of 3 to 5 non-empty strings",
    )
    related = meta.get("related", [])
    _require(
        isinstance(related, list) and all(isinstance(r, str) for r in related),
        meta_path,
        "'related' must be a list of exercise ids",
    )

    raw_limits = meta.get("limits", {})
    try:
        limits = Limits(**raw_limits)
    except (TypeError, ValueError) as exc:
        raise ExerciseError(f"{meta_path}: [limits] {exc}") from exc

    return_names = meta.get("return_names", [])
    _require(
        isinstance(return_names, list) and all(isinstance(n, str) for n in return_names),
        meta_path,
        "'return_names' must be a list of strings",
    )
    feedback = meta.get("feedback", {})
    _require(
        isinstance(feedback, dict)
        and set(feedback) <= {"extra", "missing", "differs", "empty"}
        and all(isinstance(v, str) for v in feedback.values()),
        meta_path,
        "[feedback] may only set the strings extra, missing, differs and empty",
    )

    compare = meta.get("compare", {})
    allow_nonfinite = isinstance(compare, dict) and compare.get("allow_nonfinite", False)
    _require(
        type(allow_nonfinite) is bool, meta_path, "[compare] allow_nonfinite must be true or false"
    )
    if isinstance(compare, dict):
        compare = {key: value for key, value in compare.items() if key != "allow_nonfinite"}
    tolerance = _load_tolerance(compare, meta_path)

    cases = load_cases(folder / "cases.json", parameters, len(hints))
    _require(
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
    _require(not clash, extra_path, f"case names already used in cases.json: {sorted(clash)}")
    random_case = _load_generator(folder / "case_generator.py", parameters)
    random_cases = _random_case_count(meta.get("submit", {}), meta_path, random_case)
    try:
        input_caps = read_caps(meta.get("custom", {}), parameters)
    except CapsError as error:
        raise ExerciseError(f"{meta_path}: {error}") from None

    order = meta.get("order", 0)
    _require(type(order) is int, meta_path, "'order' must be an integer")
    if not allow_nonfinite:
        for path, group in ((folder / "cases.json", cases), (extra_path, extra_cases)):
            for case in group:
                _require(
                    _finite(case.expected.get("value")),
                    path,
                    f"case {case.name!r}: the expected value holds nan or infinity; set [compare] "
                    "allow_nonfinite = true if the exercise means it",
                )
    statement = _read_text(folder / "statement.md")
    _require(bool(statement.strip()), folder / "statement.md", "the statement is empty")
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
            compile(_read_text(trace_path), str(trace_path), "exec")
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
        starter_code=_read_text(folder / "starter.py"),
        solution_code=_read_text(folder / "solution.py"),
        helpers_code=_read_text(helpers_path) if helpers_path.exists() else "",
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
        trace_code=_read_text(trace_path) if trace_path.exists() else "",
        distribution=distribution,
        sampler=sampler,
        allow_nonfinite=allow_nonfinite,
        theory=theory,
    )


def _finite(value: Any) -> bool:
    """No nan or infinity anywhere in a JSON value (json.loads reads NaN and Infinity)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(_finite, value))
    if isinstance(value, dict):
        return all(map(_finite, value.values()))
    return True


def _load_generator(path: Path, parameters: dict[str, str]) -> RandomCase | None:
    """``case_generator.py``'s ``random_case(rng)``, tried once so a broken one stops start-up."""
    if not path.exists():
        return None
    # Compiled from its text, not imported: an import would leave a __pycache__ folder in the
    # exercise, which is data (and a folder where `judge exercises check` expects files).
    namespace: dict[str, Any] = {"__name__": f"case_generator_{path.parent.name}"}
    try:
        exec(compile(_read_text(path), str(path), "exec"), namespace)
    except Exception as exc:  # trusted, but a typo in it should name the file
        raise ExerciseError(f"{path}: raised {type(exc).__name__}: {exc}") from exc
    random_case: Any = namespace.get("random_case")
    _require(callable(random_case), path, "must define random_case(rng)")
    for seed in range(3):
        try:
            sample = random_case(np.random.default_rng(seed))
            json.dumps(sample, allow_nan=False)
        except Exception as exc:
            raise ExerciseError(f"{path}: random_case raised {type(exc).__name__}: {exc}") from exc
        _require(
            isinstance(sample, dict) and list(sample) == list(parameters),
            path,
            f"random_case must return a dict keyed by the parameters {list(parameters)}, in order",
        )
    return random_case  # type: ignore[no-any-return]


def _random_case_count(raw: Any, where: Path, random_case: RandomCase | None) -> int:
    _require(
        isinstance(raw, dict) and set(raw) <= {"random_cases"},
        where,
        "[submit] may only set random_cases",
    )
    count = raw.get("random_cases", DEFAULT_RANDOM_CASES if random_case else 0)
    _require(
        type(count) is int and 0 <= count <= MAX_RANDOM_CASES,
        where,
        f"[submit] random_cases must be an integer from 0 to {MAX_RANDOM_CASES}",
    )
    _require(
        random_case is not None or count == 0,
        where,
        "[submit] random_cases needs a case_generator.py",
    )
    return count


def _load_tolerance(raw: Any, meta_path: Path) -> Tolerance:
    """``[compare]``: how close a returned float must be to the reference's (default exact)."""
    _require(
        isinstance(raw, dict) and set(raw) <= {"rel_tol", "abs_tol"},
        meta_path,
        "[compare] may only set the numbers rel_tol and abs_tol",
    )
    try:
        return Tolerance(**raw)
    except ValueError as exc:
        raise ExerciseError(f"{meta_path}: [compare] {exc}") from None


class Catalog:
    """Every exercise under one folder, loaded once and looked up by id."""

    def __init__(self, exercises: dict[str, Exercise]) -> None:
        self._exercises = exercises

    @classmethod
    def load(cls, root: Path = EXERCISES_DIR) -> Catalog:
        folders = [p for p in root.iterdir() if (p / "exercise.toml").is_file()]
        loaded = sorted(map(load_exercise, folders), key=lambda e: (e.order, e.id))
        exercises = {exercise.id: exercise for exercise in loaded}  # listed in this order
        for exercise in exercises.values():
            for other in exercise.related:
                if other not in exercises:
                    raise ExerciseError(
                        f"{exercise.folder / 'exercise.toml'}: related exercise {other!r} not "
                        f"found in {root}"
                    )
        return cls(exercises)

    def get(self, exercise_id: str) -> Exercise | None:
        return self._exercises.get(exercise_id)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._exercises.values())

    def __len__(self) -> int:
        return len(self._exercises)
