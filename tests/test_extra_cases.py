"""The data Submit grades by: each folder's extra_cases.json and case_generator.py.

Generic over every exercise folder that holds them. Expected outputs must be the reference's
(run through the real sandbox), every correct golden submission must pass them, and random
cases must be valid inputs without near-ties.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from fractions import Fraction
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from app.catalog import EXERCISES_DIR, Case, Catalog, Exercise
from app.grading.exercise_tools import reference_expectations
from app.grading.judge import Judge
from tests import golden

WITH_EXTRA = sorted(p.parent.name for p in EXERCISES_DIR.glob("*/extra_cases.json"))
WITH_GENERATOR = sorted(p.parent.name for p in EXERCISES_DIR.glob("*/case_generator.py"))


def extra_cases(exercise: Exercise) -> list[dict[str, Any]]:
    raw = json.loads((exercise.folder / "extra_cases.json").read_text(encoding="utf-8"))
    assert isinstance(raw, list) and raw
    return raw


def as_cases(items: list[dict[str, Any]]) -> tuple[Case, ...]:
    return tuple(
        Case(name=item["name"], input=item["input"], expected=item.get("expected", {}))
        for item in items
    )


def generator(exercise: Exercise) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"case_generator_{exercise.id.replace('-', '_')}", exercise.folder / "case_generator.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_choose_gamma_has_extra_cases_and_a_generator() -> None:
    assert "speculative-decoding-choose-gamma" in WITH_EXTRA
    assert "speculative-decoding-choose-gamma" in WITH_GENERATOR


@pytest.mark.parametrize("exercise_id", WITH_EXTRA)
def test_extra_cases_are_well_formed(exercise_id: str, catalog: Catalog) -> None:
    exercise = catalog.get(exercise_id)
    items = extra_cases(exercise)
    names = [item["name"] for item in items] + [case.name for case in exercise.cases]
    assert len(set(names)) == len(names), "extra case names must be unique, also against the six"
    for item in items:
        assert set(item) <= {"name", "input", "expected", "hint"}, item
        assert isinstance(item["name"], str) and item["name"].strip()
        assert list(item["input"]) == list(exercise.parameters), item["name"]
        if "hint" in item:
            assert type(item["hint"]) is int and 1 <= item["hint"] <= len(exercise.hints)


@pytest.mark.parametrize("exercise_id", WITH_EXTRA)
def test_extra_expectations_are_the_references(
    exercise_id: str, catalog: Catalog, judge: Judge
) -> None:
    exercise = catalog.get(exercise_id)
    items = extra_cases(exercise)
    fresh = reference_expectations(judge, dataclasses.replace(exercise, cases=as_cases(items)))
    assert [item["expected"] for item in items] == fresh


@pytest.mark.parametrize("exercise_id", WITH_EXTRA)
def test_correct_golden_submissions_pass_the_extra_cases(
    exercise_id: str, catalog: Catalog, judge: Judge
) -> None:
    exercise = catalog.get(exercise_id)
    extended = dataclasses.replace(exercise, cases=as_cases(extra_cases(exercise)))
    correct = golden.of(exercise_id, "correct_*.py")
    assert correct
    for path in correct:
        report = judge.grade(extended, path.read_text())
        failing = [(t.name, t.message) for t in report.tests if t.status.value != "pass"]
        assert report.verdict.value == "accepted", (path.name, failing)


def test_a_lookup_table_of_the_examples_passes_run_and_fails_the_extra_cases(
    catalog: Catalog, judge: Judge
) -> None:
    exercise = catalog.get("speculative-decoding-choose-gamma")
    table = {tuple(case.input.values()): tuple(case.expected["value"]) for case in exercise.cases}
    code = f"TABLE = {table!r}\n\ndef choose_gamma(alpha, c, max_gamma):\n"
    code += "    return TABLE.get((alpha, c, max_gamma), (0, 1.0))\n"
    assert judge.grade(exercise, code).verdict.value == "accepted"
    extended = dataclasses.replace(exercise, cases=as_cases(extra_cases(exercise)))
    report = judge.grade(extended, code)
    assert report.verdict.value == "wrong_answer"
    assert report.passed < len(report.tests) // 2


@pytest.mark.parametrize("exercise_id", WITH_GENERATOR)
def test_random_cases_are_reproducible_json_safe_inputs(exercise_id: str, catalog: Catalog) -> None:
    exercise = catalog.get(exercise_id)
    random_case = generator(exercise).random_case
    seen = set()
    for seed in range(300):
        case = random_case(np.random.default_rng(seed))
        assert list(case) == list(exercise.parameters)
        assert json.loads(json.dumps(case, allow_nan=False)) == case
        assert all(
            type(v) in (int, float, str, bool, list, dict, type(None)) for v in case.values()
        )
        assert random_case(np.random.default_rng(seed)) == case  # the seed replays it
        seen.add(json.dumps(case))
    assert len(seen) > 250  # really random, not a handful of fixed cases


def _exact_speedup(alpha: Fraction, c: Fraction, gamma: int) -> Fraction:
    tokens = sum(alpha**k for k in range(gamma + 1))
    return tokens / (gamma * c + 1)


def test_random_gamma_cases_cover_the_edges_and_have_no_near_ties(catalog: Catalog) -> None:
    random_case = generator(catalog.get("speculative-decoding-choose-gamma")).random_case
    kinds = set()
    for seed in range(400):
        case = random_case(np.random.default_rng(seed))
        alpha, c, max_gamma = Fraction(case["alpha"]), Fraction(case["c"]), case["max_gamma"]
        assert 0 <= alpha <= 1 and c >= 0 and type(max_gamma) is int and max_gamma >= 0
        # exact rational arithmetic, independent of the generator's own floats
        values = sorted((_exact_speedup(alpha, c, g) for g in range(max_gamma + 1)), reverse=True)
        if len(values) > 1:
            assert (values[0] - values[1]) / values[0] > Fraction(1, 10**7), case
        best = max(range(max_gamma + 1), key=lambda g: _exact_speedup(alpha, c, g))
        kinds.add("alpha=1" if alpha == 1 else "alpha=0" if alpha == 0 else "alpha")
        kinds.add("c=0" if c == 0 else "c")
        kinds.add("max_gamma=0" if max_gamma == 0 else "gamma=0" if best == 0 else "gamma>0")
        if max_gamma and best == max_gamma:
            kinds.add("gamma=max")
    assert kinds >= {"alpha=1", "alpha=0", "c=0", "max_gamma=0", "gamma=0", "gamma>0", "gamma=max"}


def test_correct_submissions_agree_with_the_reference_on_random_cases(
    catalog: Catalog, judge: Judge
) -> None:
    exercise = catalog.get("speculative-decoding-choose-gamma")
    random_case = generator(exercise).random_case
    rng = np.random.default_rng(2026)
    cases = as_cases([{"name": f"random {i}", "input": random_case(rng)} for i in range(40)])
    unexpected = dataclasses.replace(exercise, cases=cases)
    expected = reference_expectations(judge, unexpected)
    graded = dataclasses.replace(
        exercise,
        cases=tuple(
            dataclasses.replace(c, expected=e) for c, e in zip(cases, expected, strict=True)
        ),
    )
    for path in golden.of(exercise.id, "correct_*.py"):
        report = judge.grade(graded, path.read_text())
        failing = [(t.input, t.message) for t in report.tests if t.status.value != "pass"]
        assert report.verdict.value == "accepted", (path.name, failing)
