"""`judge exercises check|regen [ID...]`: exercise folders proven through the real sandbox.

Expected outputs are never typed by hand: ``regen`` runs each reference solution through the
sandbox and stores what it returned (and how many random numbers it drew), replacing only the
``expected`` values that change, in place; ``check`` fails when the stored expectations and a
fresh run of the reference disagree, when the reference fails its own Submit (random cases and
checks included), a golden correct submission is refused or a wrong one beside the exercise
fails otherwise than its first line says, when the math of the statement or a
hint does not typeset, and (at load) on every rule of the folder format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from app import statement_math
from app.catalog import EXERCISES_DIR, Case, Catalog, Exercise, ExerciseError
from app.exercise_keys import nearest
from app.grading import case_sets, compare, custom_input, feedback, reports
from app.grading.judge import Judge
from app.schemas import Group, Mode, Status, Verdict
from app.theory import texts as theory_texts
from sandbox import RandomMode

# Golden submissions live with their exercise (``<folder>/solutions/``) or, for the built-in
# exercises, under the repository's ``tests/solutions/<id>/``.
GOLDEN_FOLDER = "solutions"
REPOSITORY_GOLDEN = EXERCISES_DIR.parent / "tests" / "solutions"
GOLDEN_SEED = 20260101


def golden_folders(exercise: Exercise) -> list[Path]:
    """Where an exercise's golden submissions are: beside it, and in the repository's tests for
    the repository's own exercises (not for a copy elsewhere that has one of their ids)."""
    places = [exercise.folder / GOLDEN_FOLDER]
    if exercise.folder.resolve().parent == EXERCISES_DIR.resolve():
        places.append(REPOSITORY_GOLDEN / exercise.id)
    return [place for place in places if place.is_dir()]


def golden_files(exercise: Exercise, prefix: str) -> list[Path]:
    """The exercise's golden ``<prefix>_*.py`` submissions (correct or wrong), sorted."""
    return sorted(p for place in golden_folders(exercise) for p in place.glob(f"{prefix}_*.py"))


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
        raise ExerciseError(
            f"{exercise.folder / 'solution.py'}: the reference does not run: {detail}"
        )
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
            trace = exercise.folder / "trace.py"
            raise ExerciseError(f"{trace}: failed on {case.name!r}: {run.trace['trace_error']}")
        expected = feedback.expected_from_run(run, exercise.random_mode is RandomMode.generator)
        expectations.append(expected)
    return expectations


def check_exercise(judge: Judge, exercise: Exercise) -> list[str]:
    """Problems with one exercise folder (empty when it is sound)."""
    problems = []
    stored = exercise.cases + exercise.extra_cases
    # A stored input of the wrong kind ("probs": "abc") is the case's fault: said so first, not
    # as the reference's TypeError on it.
    misfits = _caps_problems(exercise)
    if misfits:
        return misfits
    try:
        regenerated = reference_expectations(judge, exercise, stored)
    except ExerciseError as exc:
        return [str(exc)]
    for case, fresh in zip(stored, regenerated, strict=True):
        if not compare.same(case.expected, fresh, exercise.tolerance):
            problems.append(
                f"case {case.name!r}: stored expected {json.dumps(case.expected)} but the "
                f"reference now gives {json.dumps(fresh)} "
                f"(run `judge exercises regen {exercise.id}`)"
            )
    problems.extend(_random_case_problems(judge, exercise))
    reference = judge.grade(exercise, exercise.solution_code)
    if reference.status != Status.passed:
        problems.append(f"the reference solution is not accepted ({reference.verdict.value})")
    else:
        problems.extend(_submit_problems(judge, exercise, "the reference", exercise.solution_code))
    for path in golden_files(exercise, "correct"):
        code = path.read_text(encoding="utf-8")
        problems.extend(_submit_problems(judge, exercise, f"golden {path.name}", code))
    for path in sorted((exercise.folder / GOLDEN_FOLDER).glob("wrong_*.py")):
        problems.extend(_wrong_golden_problems(judge, exercise, path))
    starter = judge.grade(exercise, exercise.starter_code)
    if starter.verdict in (Verdict.compile_error, Verdict.rejected):
        problems.append(f"the starter code does not compile: {starter.message}")
    elif starter.status == Status.passed:
        problems.append("the starter code passes every case; it must fail")
    return problems


def _submit_problems(judge: Judge, exercise: Exercise, who: str, code: str) -> list[str]:
    """A Submit of ``code`` (random cases and checks included) that is not accepted, in words:
    the first failing row, with its message."""
    report = judge.grade(exercise, code, Mode.submit, seed=GOLDEN_SEED)
    if report.status == Status.passed:
        return []
    row = next((t for t in report.tests if t.status != Status.passed), None)
    where = f": {row.name!r}: {row.message}" if row is not None else f": {report.message}"
    return [f"{who} fails its Submit ({report.verdict.value}){where}"]


def _wrong_golden_problems(judge: Judge, exercise: Exercise, path: Path) -> list[str]:
    """A ``wrong_*.py`` beside the exercise must fail Submit as its first lines say
    (``# expect: <verdict> <first failing case>``, ``random`` for any random case, then
    optionally ``# message: <words>``), so that an author proves it in the one folder. The
    repository's own tests/solutions/ are proven by the test suite, Run included."""
    code = path.read_text(encoding="utf-8")
    lines = code.splitlines() or [""]
    if not lines[0].startswith("# expect: "):
        return [f"golden {path.name}: its first line must be '# expect: <verdict> <case name>'"]
    verdict, _, case = lines[0].removeprefix("# expect: ").partition(" ")
    case = case.strip()
    said = lines[1] if len(lines) > 1 else ""
    phrase = said.removeprefix("# message: ").strip() if said.startswith("# message: ") else ""
    report = judge.grade(exercise, code, Mode.submit, seed=GOLDEN_SEED)
    expected = f"its first line expects {verdict} at {case!r}"
    if report.status == Status.passed:
        return [f"golden {path.name} is accepted by Submit; {expected}"]
    first = next((t for t in report.tests if t.status != Status.passed), None)
    if report.status == Status.error or first is None:  # nothing ran: the report says why
        where, text, at_case = "the whole submission", report.message or "", True
    else:
        where, text = first.name, first.message or ""
        at_case = first.name == case or (case == "random" and first.group == Group.random)
    if report.verdict.value != verdict or not at_case:
        got = f"fails Submit with {report.verdict.value} at {where!r}"
        return [f"golden {path.name} {got}; {expected}"]
    if phrase and phrase.lower() not in text.lower():
        return [f"golden {path.name}: the message at {where!r} lacks {phrase!r}: {text}"]
    return []


def math_problems(
    exercises: Sequence[Exercise], use_browser: bool = True
) -> tuple[dict[str, list[str]], bool]:
    """Each exercise's math problems (statement and hints), and whether KaTeX checked them."""
    texts: dict[str, str] = {}
    owner: dict[str, str] = {}
    for exercise in exercises:
        named = {f"{exercise.folder / 'statement.md'}": exercise.statement}
        named |= {
            f"{exercise.folder} theory, part {n}": text
            for n, text in enumerate(theory_texts(exercise.theory), 1)
        }
        named |= {
            f"{exercise.folder / 'exercise.toml'} hint {n}": h
            for n, h in enumerate(exercise.hints, 1)
        }
        texts |= named
        owner |= dict.fromkeys(named, exercise.id)
    found, typeset = statement_math.math_problems(texts, use_browser)
    problems: dict[str, list[str]] = {exercise.id: [] for exercise in exercises}
    for problem in found:
        name = next(n for n in texts if problem.startswith(n))
        problems[owner[name]].append(problem)
    return problems, typeset


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


def _caps_problems(exercise: Exercise) -> list[str]:
    """Every input the exercise itself grades on must fit its own ``[custom]`` caps: a cap
    that refuses one (a distribution declared on a parameter whose cases are not one, a
    tolerance tighter than their round-off, a length below theirs) is misdeclared, and a
    learner who copied that case into "Try your own input" would be refused."""
    named = [(f"case {case.name!r}", case.input) for case in exercise.cases + exercise.extra_cases]
    named += [
        (f"random case {index + 1} of seed 0", inputs)
        for index, inputs in enumerate(case_sets.random_inputs(exercise, 0))
    ]
    if exercise.sampler is not None and exercise.random_argument is not None:
        generator = {exercise.random_argument: {"seed": 0}}
        named += [
            (f"sampler input {item.name!r}", {**item.input, **generator})
            for item in exercise.sampler.inputs
        ]
    problems = []
    for where, inputs in named:
        try:
            custom_input.validate(exercise, inputs)
        except custom_input.BadInput as refused:
            problems.append(
                f"{where} does not fit the exercise's own [custom] caps: {refused.detail}"
            )
            break  # one is enough to show the cap is misdeclared
    return problems


# The chosen exercises, and the broken folders among the chosen (always none for regen).
Work = Callable[[Judge, list[Exercise], dict[Path, str]], int]


def _for_exercises(root: Path, ids: Sequence[str], work: Work, *, each: bool = False) -> int:
    """Load the catalog (``each``: folder by folder, the broken ones handed to ``work``; else
    stopping at a broken folder), pick ``ids`` (every exercise when none), start a judge, run
    ``work``, stop it."""
    try:
        catalog, broken = Catalog.load_each(root) if each else (Catalog.load(root), {})
    except ExerciseError as exc:
        print(f"FAIL  {exc}")
        return 1
    if not len(catalog) and not broken:
        print(f"FAIL  no exercise folders in {root} (none there holds an exercise.toml)")
        return 1
    known = [exercise.id for exercise in catalog] + [folder.name for folder in broken]
    unknown = [i for i in ids if i not in known]
    if unknown:
        print(f"FAIL  no exercise {unknown[0]!r} in {root}{nearest(unknown[0], known)}")
        return 1
    chosen = [catalog.get(i) for i in dict.fromkeys(ids)] if ids else list(catalog)
    broken = {folder: why for folder, why in broken.items() if not ids or folder.name in ids}
    judge = Judge.create(workers=2, queue_size=16)
    try:
        return work(judge, [exercise for exercise in chosen if exercise is not None], broken)
    except ExerciseError as exc:
        print(f"FAIL  {exc}")
        return 1
    finally:
        judge.close()


def check_all(root: Path, ids: Sequence[str] = ()) -> int:
    """Check every folder, each on its own: a broken one is reported and the rest checked."""
    return _for_exercises(root, ids, _check_exercises, each=True)


def _check_exercises(judge: Judge, exercises: list[Exercise], broken: dict[Path, str]) -> int:
    failed = len(broken)
    maths, typeset = math_problems(exercises)
    if not typeset:
        print("note  no headless Chromium here: math checked for structure only, not by KaTeX")
    for folder, why in broken.items():
        _print_result(folder.name, folder, [why])
    for exercise in exercises:
        problems = maths[exercise.id] + check_exercise(judge, exercise)
        _print_result(exercise.id, exercise.folder, problems)
        failed += bool(problems)
    total = len(exercises) + len(broken)
    print(f"{total - failed} of {total} exercises valid")
    return 1 if failed else 0


def _print_result(name: str, folder: Path, problems: list[str]) -> None:
    print(f"{'FAIL' if problems else 'ok  '}  {name}  ({folder})")
    for problem in problems:
        # A message of many lines (a traceback) stays under its exercise, indented.
        print("      " + problem.replace("\n", "\n        "))


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


def regenerate_all(root: Path, ids: Sequence[str] = ()) -> int:
    return _for_exercises(root, ids, _regenerate_exercises)


def _regenerate_exercises(judge: Judge, exercises: list[Exercise], broken: dict[Path, str]) -> int:
    for exercise in exercises:
        regenerate(judge, exercise)
    return 0


def regenerate(judge: Judge, exercise: Exercise) -> None:
    """Rewrite the stored expectations of one exercise from its reference, file by file."""
    _regenerate(judge, exercise, exercise.cases, exercise.folder / "cases.json")
    if exercise.extra_cases:
        _regenerate(judge, exercise, exercise.extra_cases, exercise.folder / "extra_cases.json")


def _regenerate(judge: Judge, exercise: Exercise, stored: tuple[Case, ...], path: Path) -> None:
    expectations = reference_expectations(judge, exercise, stored)
    before = path.read_text(encoding="utf-8")
    # A file whose cases stay the same is not touched (nor its time stamp), however its keys
    # are laid out: only a change of what it says is a change.
    changed = _parsed(before) != [
        {**raw, "expected": expected}
        for raw, expected in zip(_parsed(before) or [], expectations, strict=False)
    ]
    if changed:
        after = with_expectations(before, expectations)
        if after is None:  # not a list of objects that can be edited in place: laid out anew
            cases = [
                {"name": case.name, "hint": case.hint, "input": case.input, "expected": expected}
                for case, expected in zip(stored, expectations, strict=True)
            ]
            after = format_cases(cases)
        path.write_text(after, encoding="utf-8")
    print(f"{'updated' if changed else 'same   '}  {path}")


def _parsed(text: str) -> Any:
    """A cases file's content, key order aside (None when it does not parse)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


_SPACE = re.compile(r"\s*")
_DECODER = json.JSONDecoder()


def with_expectations(text: str, expectations: list[dict[str, Any]]) -> str | None:
    """``text`` (a cases file) with each case's ``expected`` that differs replaced in place,
    everything else left byte for byte as the author laid it out (key order, hints, spacing),
    so that a diff shows only what changed; None when the file is no list of one object per
    expectation, each with an ``expected``."""
    spans = _object_spans(text)
    if spans is None or len(spans) != len(expectations):
        return None
    edits = []
    for (start, end), expected in zip(spans, expectations, strict=True):
        if json.loads(text[start:end]).get("expected") == expected:
            continue
        value = _member_span(text, start, "expected")
        if value is None:
            return None
        edits.append((value, json.dumps(expected)))
    for (start, end), replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    return text


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _object_spans(text: str) -> list[tuple[int, int]] | None:
    """Where each item of a top-level JSON list starts and ends in ``text``."""
    index = _skip(text, 0)
    if not text.startswith("[", index):
        return None
    index, spans = _skip(text, index + 1), []
    while not text.startswith("]", index):
        try:
            item, end = _DECODER.raw_decode(text, index)
        except json.JSONDecodeError:
            return None
        if not isinstance(item, dict):
            return None
        spans.append((index, end))
        index = _skip(text, end)
        if text.startswith(",", index):
            index = _skip(text, index + 1)
        elif not text.startswith("]", index):
            return None
    return spans


def _member_span(text: str, start: int, key: str) -> tuple[int, int] | None:
    """Where the value of ``key`` lies in the JSON object that starts at ``start``."""
    index = _skip(text, start + 1)
    while text.startswith('"', index):
        name, index = _DECODER.raw_decode(text, index)
        index = _skip(text, index)
        if not text.startswith(":", index):
            return None
        index = _skip(text, index + 1)
        _, end = _DECODER.raw_decode(text, index)
        if name == key:
            return index, end
        index = _skip(text, end)
        if text.startswith(",", index):
            index = _skip(text, index + 1)
    return None
