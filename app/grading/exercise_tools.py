"""`judge exercises check|regen`: every exercise folder proven through the real sandbox.

Expected outputs are never typed by hand: ``regen`` runs each reference solution through the
sandbox and stores what it returned (and how many random numbers it drew); ``check`` fails
when the stored expectations and a fresh run of the reference disagree.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.catalog import Case, Catalog, Exercise, ExerciseError
from app.grading import case_sets, compare, feedback, reports
from app.grading.judge import Judge
from app.schemas import Status, Verdict
from sandbox import RandomMode


def reference_expectations(
    judge: Judge, exercise: Exercise, cases: tuple[Case, ...] | None = None
) -> list[dict[str, Any]]:
    """What the reference solution returns for each case (the examples unless ``cases`` says
    otherwise), in the stored ``expected`` shape, with its trace where the exercise has one."""
    cases = exercise.cases if cases is None else cases
    inputs = [case.input for case in cases]
    job = exercise.job(exercise.solution_code, inputs, with_trace=True)
    result = judge.pool.submit(job).result(timeout=120)
    if result.setup is not None:
        detail = reports.setup_detail(exercise, result.setup)
        raise ExerciseError(f"{exercise.id}: the reference does not run: {detail}")
    expectations = []
    for case, run in zip(cases, result.cases, strict=True):
        if run.outcome != "returned":
            message = compare.error_message(run, reports.limits_text(exercise))
            raise ExerciseError(f"{exercise.id}: reference failed on {case.name!r}: {message}")
        problem = compare.type_problem(
            run.value, compare.parse_type(exercise.returns), "the reference's return value"
        )
        if problem:
            raise ExerciseError(f"{exercise.id}: {case.name!r}: {problem}")
        if isinstance(run.trace, dict) and "trace_error" in run.trace:
            raise ExerciseError(f"{exercise.id}: trace.py failed on {case.name!r}: {run.trace}")
        expected = feedback.expected_from_run(run, exercise.random_mode is RandomMode.generator)
        expectations.append(expected)
    return expectations


def check_exercise(judge: Judge, exercise: Exercise) -> list[str]:
    """Problems with one exercise folder (empty when it is sound)."""
    problems = []
    stored = exercise.cases + exercise.extra_cases
    try:
        regenerated = reference_expectations(judge, exercise, stored)
    except ExerciseError as exc:
        return [str(exc)]
    for case, fresh in zip(stored, regenerated, strict=True):
        if not compare.same(case.expected, fresh, exercise.tolerance):
            problems.append(
                f"case {case.name!r}: stored expected {json.dumps(case.expected)} but the "
                f"reference now gives {json.dumps(fresh)} (run `judge exercises regen`)"
            )
    problems.extend(_random_case_problems(judge, exercise))
    reference = judge.grade(exercise, exercise.solution_code)
    if reference.status != Status.passed:
        problems.append(f"the reference solution is not accepted ({reference.verdict.value})")
    starter = judge.grade(exercise, exercise.starter_code)
    if starter.verdict in (Verdict.compile_error, Verdict.rejected):
        problems.append(f"the starter code does not compile: {starter.message}")
    elif starter.status == Status.passed:
        problems.append("the starter code passes every case; it must fail")
    return problems


def _random_case_problems(judge: Judge, exercise: Exercise) -> list[str]:
    """The generator's cases must be inputs the reference answers (two seeds' worth)."""
    problems = []
    for seed in (0, 1):
        inputs = case_sets.random_inputs(exercise, seed)
        if not inputs:
            return []
        result = judge.reference(exercise, inputs).result(timeout=120)
        for index in range(len(inputs)):
            problem = case_sets.reference_problem(exercise, result, index)
            if problem:
                problems.append(f"random case {index + 1} of seed {seed}: {problem}")
                break
    return problems


def _for_every_exercise(root: Path, work: Callable[[Judge, Catalog], int]) -> int:
    """Load the catalog (reporting a broken folder), start a judge, run ``work``, stop it."""
    try:
        catalog = Catalog.load(root)
    except ExerciseError as exc:
        print(f"FAIL  {exc}")
        return 1
    judge = Judge.create(workers=1, queue_size=4)
    try:
        return work(judge, catalog)
    except ExerciseError as exc:
        print(f"FAIL  {exc}")
        return 1
    finally:
        judge.close()


def check_all(root: Path) -> int:
    return _for_every_exercise(root, _check_catalog)


def _check_catalog(judge: Judge, catalog: Catalog) -> int:
    failed = 0
    for exercise in catalog:
        problems = check_exercise(judge, exercise)
        print(f"{'FAIL' if problems else 'ok  '}  {exercise.id}")
        for problem in problems:
            print(f"      {problem}")
        failed += bool(problems)
    print(f"{len(catalog) - failed} of {len(catalog)} exercises valid")
    return 1 if failed else 0


def format_cases(cases: list[dict[str, Any]]) -> str:
    """cases.json with one line per field, each value compact, so diffs stay readable."""
    blocks = []
    for case in cases:
        inputs = ",\n".join(
            f"      {json.dumps(name)}: {json.dumps(value)}"
            for name, value in case["input"].items()
        )
        hint = f'    "hint": {case["hint"]},\n' if case.get("hint") is not None else ""
        blocks.append(
            "  {\n"
            f'    "name": {json.dumps(case["name"])},\n'
            f"{hint}"
            f'    "input": {{\n{inputs}\n    }},\n'
            f'    "expected": {json.dumps(case["expected"])}\n'
            "  }"
        )
    return "[\n" + ",\n".join(blocks) + "\n]\n"


def regenerate_all(root: Path) -> int:
    return _for_every_exercise(root, _regenerate_catalog)


def _regenerate_catalog(judge: Judge, catalog: Catalog) -> int:
    for exercise in catalog:
        _regenerate(judge, exercise, exercise.cases, exercise.folder / "cases.json")
        if exercise.extra_cases:
            _regenerate(judge, exercise, exercise.extra_cases, exercise.folder / "extra_cases.json")
    return 0


def _regenerate(judge: Judge, exercise: Exercise, stored: tuple[Case, ...], path: Path) -> None:
    expectations = reference_expectations(judge, exercise, stored)
    cases = [
        {"name": case.name, "hint": case.hint, "input": case.input, "expected": expected}
        for case, expected in zip(stored, expectations, strict=True)
    ]
    before = path.read_text(encoding="utf-8")
    after = format_cases(cases)
    path.write_text(after, encoding="utf-8")
    print(f"{'updated' if before != after else 'same   '}  {path}")
