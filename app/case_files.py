"""An exercise folder's case files and its case generator, read and checked: ``cases.json``,
``extra_cases.json`` and ``case_generator.py`` (trusted code, compiled from its text). Every
problem is an ExerciseError naming the file."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from app.exercise import Case, ExerciseError, RandomCase
from app.trusted_code import time_limited

DEFAULT_RANDOM_CASES = 20
MAX_RANDOM_CASES = 200


def require(condition: bool, where: Path, message: str) -> None:
    if not condition:
        raise ExerciseError(f"{where}: {message}")


def read_text(path: Path) -> str:
    require(path.is_file(), path, "missing file")
    return path.read_text(encoding="utf-8")


def load_cases(
    path: Path, parameters: dict[str, str], hint_count: int | None = None, group: str = "example"
) -> tuple[Case, ...]:
    """Read ``cases.json`` (or ``extra_cases.json``, whose cases may name a ``hint`` among
    ``hint_count``): a list of ``{name, input, expected}`` objects."""
    try:
        raw = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise ExerciseError(f"{path}: not valid JSON ({exc})") from exc
    require(isinstance(raw, list), path, "must hold a JSON list of cases")
    cases = []
    for position, item in enumerate(raw, start=1):
        where = f"case {position}"
        require(isinstance(item, dict), path, f"{where} must be an object")
        allowed = {"name", "input", "expected"} | ({"hint"} if hint_count is not None else set())
        unknown = sorted(set(item) - allowed)
        if unknown:
            keys = ", ".join(sorted(allowed))
            raise ExerciseError(
                f"{path}: {where} has unknown key {unknown[0]!r} (a case holds {keys})"
            )
        name = item.get("name")
        require(isinstance(name, str) and bool(name.strip()), path, f"{where} needs a name")
        inputs = item.get("input")
        require(isinstance(inputs, dict), path, f"{where} ({name}) needs an input object")
        require(
            list(inputs) == list(parameters),
            path,
            f"{where} ({name}) input keys {list(inputs)} must be the parameters "
            f"{list(parameters)}, in order",
        )
        expected = item.get("expected", {})
        require(isinstance(expected, dict), path, f"{where} ({name}) expected must be an object")
        hint = item.get("hint")
        if hint is not None:
            require(
                type(hint) is int and 1 <= hint <= (hint_count or 0),
                path,
                f"{where} ({name}) hint must be a hint number from 1 to {hint_count}",
            )
        cases.append(Case(name=name, input=inputs, expected=expected, hint=hint, group=group))
    names = [case.name for case in cases]
    require(len(set(names)) == len(names), path, "case names must be unique")
    return tuple(cases)


def finite(value: Any) -> bool:
    """No nan or infinity anywhere in a JSON value (json.loads reads NaN and Infinity)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(finite, value))
    if isinstance(value, dict):
        return all(map(finite, value.values()))
    return True


@contextmanager
def _global_generators(seed: int, touched: list[str]) -> Iterator[None]:
    """Python's and numpy's global generators seeded for one call, then put back as they were
    (the judge's own draws, FreshCases' seeds among them, must not change); the name of each
    one the call drew from (or reseeded) is added to ``touched``, however rarely its draws
    matter to the case."""
    python, legacy = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed)
    seeded_python, seeded_numpy = random.getstate(), np.random.get_state()
    try:
        yield
    finally:
        if random.getstate() != seeded_python:
            touched.append("Python's random module")
        if not _same_state(np.random.get_state(), seeded_numpy):
            touched.append("numpy's global generator (np.random.*)")
        random.setstate(python)
        np.random.set_state(legacy)


def _same_state(one: Any, other: Any) -> bool:
    return all(
        np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
        for a, b in zip(one, other, strict=True)
    )


def load_generator(path: Path, parameters: dict[str, str]) -> RandomCase | None:
    """``case_generator.py``'s ``random_case(rng)``, tried once so a broken one stops start-up."""
    if not path.exists():
        return None
    # Compiled from its text, not imported: an import would leave a __pycache__ folder in the
    # exercise, which is data (and a folder where `judge exercises check` expects files).
    namespace: dict[str, Any] = {"__name__": f"case_generator_{path.parent.name}"}
    with time_limited(path, "loading it", ExerciseError):
        try:
            exec(compile(read_text(path), str(path), "exec"), namespace)
        except Exception as exc:  # trusted, but a typo in it should name the file
            raise ExerciseError(f"{path}: raised {type(exc).__name__}: {exc}") from exc
    random_case: Any = namespace.get("random_case")
    require(callable(random_case), path, "must define random_case(rng)")
    for seed in range(3):
        with time_limited(path, f"random_case on seed {seed}", ExerciseError):
            try:
                # The process's own generators (Python's random, numpy's global one) seeded
                # apart for the two calls: a case that leans on either differs, even where it
                # draws from them rarely.
                touched: list[str] = []
                with _global_generators(seed, touched):
                    sample = random_case(np.random.default_rng(seed))
                with _global_generators(seed + 1000, touched):
                    again = random_case(np.random.default_rng(seed))
                json.dumps(sample, allow_nan=False)
            except Exception as exc:
                raise ExerciseError(
                    f"{path}: random_case raised {type(exc).__name__}: {exc}"
                ) from exc
        require(
            isinstance(sample, dict) and list(sample) == list(parameters),
            path,
            f"random_case must return a dict keyed by the parameters {list(parameters)}, in order",
        )
        # The report's seed replays a Submit's random cases: they must come from rng alone
        # (not Python's random module, the clock or numpy's global generator).
        require(
            not touched,
            path,
            f"random_case draws from {touched[0] if touched else ''}: it must draw from its rng "
            "alone, so that the seed in a report replays its cases",
        )
        require(
            json.dumps(sample, sort_keys=True) == json.dumps(again, sort_keys=True),
            path,
            f"random_case gave two different cases for seed {seed}: it must draw from its rng "
            "alone (not Python's random module, numpy's global generator or the clock), so that "
            "the seed in a report replays them",
        )
    return random_case  # type: ignore[no-any-return]


def random_case_count(raw: Any, where: Path, random_case: RandomCase | None) -> int:
    require(
        isinstance(raw, dict) and set(raw) <= {"random_cases"},
        where,
        "[submit] may only set random_cases",
    )
    count = raw.get("random_cases", DEFAULT_RANDOM_CASES if random_case else 0)
    require(
        type(count) is int and 0 <= count <= MAX_RANDOM_CASES,
        where,
        f"[submit] random_cases must be an integer from 0 to {MAX_RANDOM_CASES}",
    )
    require(
        random_case is not None or count == 0,
        where,
        "[submit] random_cases needs a case_generator.py",
    )
    return count
