"""Raw sandbox results -> the Report of docs/architecture.md: verdicts, rows and their messages.

Pure and trusted: no pool, no I/O. ``app.grading.judge`` runs the jobs and hands their results here;
the comparisons are in ``app.grading.compare``, the teaching sentences in ``app.grading.feedback``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.catalog import Case, Exercise
from app.grading import compare, feedback
from app.schemas import CaseResult, Group, Mode, Report, Status, Verdict
from sandbox import CaseRun, Limits, Outcome, RunResult, SetupFailure, SetupKind

if TYPE_CHECKING:
    from app.grading.whole_checks import WholeCheck

CASE_VERDICT = {
    Outcome.timeout: Verdict.time_limit_exceeded,
    Outcome.memory: Verdict.memory_limit_exceeded,
    Outcome.output: Verdict.output_limit_exceeded,
    Outcome.raised: Verdict.runtime_error,
    Outcome.crashed: Verdict.runtime_error,
    Outcome.not_run: Verdict.time_limit_exceeded,  # never first: the case that spent it is
}
SETUP_VERDICT = {
    SetupKind.compile: Verdict.compile_error,
    SetupKind.refused: Verdict.rejected,
    SetupKind.module: Verdict.runtime_error,
    SetupKind.missing_entry: Verdict.runtime_error,
    SetupKind.crashed: Verdict.runtime_error,
    SetupKind.timeout: Verdict.time_limit_exceeded,
    SetupKind.memory: Verdict.memory_limit_exceeded,
    SetupKind.output: Verdict.output_limit_exceeded,
}


def time_budget(limits: Limits) -> str:
    """The one CPU-time budget all the cases of a submission share, as its sentences name it."""
    return f"{limits.time_ms} ms of CPU"


def limits_text(exercise: Exercise) -> dict[str, str]:
    limits = exercise.limits
    return {
        "time": (
            f"this case used up the {time_budget(limits)} time that all the cases "
            "of a submission share"
        ),
        "memory": f"your code used more than {limits.memory_mb} MB",
        "output": f"{limits.output_bytes // 1024} KB",
    }


def not_run_message(
    exercise: Exercise, spent_by: str | None, spent: Outcome | None = Outcome.timeout
) -> str:
    """Why a case after the one that spent one of the submission's budgets did not run."""
    which = f'case "{spent_by}"' if spent_by else "an earlier case"
    if spent is Outcome.output:
        return (
            f"not run: {which} filled the room for this submission's results "
            f"({exercise.limits.reply_bytes // 1024} KB for all the cases together); "
            "return smaller results first"
        )
    return (
        f"not run: {which} used up the time budget ({time_budget(exercise.limits)} "
        "for all the cases together); fix that case first"
    )


def case_row(
    exercise: Exercise,
    case: Case,
    run: CaseRun,
    spent_by: str | None = None,
    spent: Outcome | None = Outcome.timeout,
) -> CaseResult:
    """Compare one raw case outcome with the stored expectation (``spent_by``: the name of
    the case that used up the time budget, if one did)."""
    expected = case.expected.get("value")
    output = None
    if run.output:
        # The learner's own prints, minus the judge's paths (an exception message they print
        # can name a file of the judge's, as a traceback would).
        output = compare.scrub(run.output) or ""
        output += "\n[output cut: limit reached]" if run.output_truncated else ""

    def result(status: Status, actual: Any, message: str | None) -> CaseResult:
        return CaseResult(
            name=case.name,
            status=status,
            group=Group(case.group),
            hint=case.hint,
            input=case.input,
            expected=expected,
            actual=actual,
            message=compare.scrub(message),
            output=output,
            duration_ms=round(run.duration_ms, 3),
        )

    if run.outcome is Outcome.not_run:
        return result(Status.error, None, not_run_message(exercise, spent_by, spent))
    if case.reference_problem is not None:
        # Nothing to compare with: the learner sees their own result and why there is no other.
        message = f"no verdict on this input: {case.reference_problem}"
        if run.outcome is Outcome.exhausted:
            message += f"; {feedback.exhausted_sentence(run.draws, None, run.drawn)}"
        elif run.outcome is Outcome.bad_input:
            pass  # the learner's function was not called either: the problem says it all
        elif run.outcome is not Outcome.returned:
            message += f"; your function: {compare.error_message(run, limits_text(exercise))}"
        actual = compare.plain(run.value) if run.outcome is Outcome.returned else None
        return result(Status.error, actual, message)
    if run.outcome is Outcome.exhausted:
        # Drawing more numbers than the case scripts is a logic mistake, not a crash.
        message = feedback.exhausted_sentence(
            run.draws, case.expected.get("draws"), run.drawn, case.expected.get("drawn")
        )
        return result(Status.failed, None, message)
    if run.outcome is not Outcome.returned:
        message = compare.error_message(run, limits_text(exercise))
        return result(Status.error, None, message)

    actual = compare.plain(run.value)
    spec = compare.parse_type(exercise.returns)
    names = exercise.return_names
    problems: list[str] = []
    type_problem = compare.type_problem(run.value, spec, "your return value", names)
    if type_problem:
        problems.append(type_problem)
    else:
        problems.extend(_value_problems(exercise, spec, actual, expected))
    explanation = None
    if problems and not type_problem:
        position = feedback.first_divergence(actual, expected)
        if position is not None:
            single = spec.name == "int"
            explanation = feedback.explain_divergence(case.expected.get("trace"), position, single)
    draws = feedback.draws_sentence(
        run.draws, case.expected.get("draws"), run.drawn, case.expected.get("drawn")
    )
    if draws:
        problems.append(draws)
    kinds = {name: kind for name, kind in exercise.parameters.items() if kind != "rng"}
    unseen = compare.unchecked_arguments(run.inputs_after, kinds)
    mutation = compare.mutation_problem(
        _as_built(case.input, kinds), run.inputs_after, kinds, unseen
    )
    if mutation:
        problems.append(mutation)
    status = Status.failed if problems else Status.passed
    message = "; ".join(problems)
    if message and explanation:
        message += ". " + explanation
    return result(status, actual, message or None)


def _as_built(inputs: dict[str, Any], kinds: dict[str, str]) -> dict[str, Any]:
    """Inputs as the child's snapshot spells them: an empty array ``{"empty": [0, V]}`` is a
    list of that shape with no numbers."""
    built = dict(inputs)
    for name, kind in kinds.items():
        value = built.get(name)
        if kind == "ndarray" and isinstance(value, dict) and "empty" in value:
            shape = value["empty"]
            built[name] = [] if shape[0] == 0 else [[] for _ in range(shape[0])]
    return built


def _value_problems(
    exercise: Exercise, spec: compare.TypeSpec, actual: Any, expected: Any
) -> list[str]:
    feedback = compare.Feedback(**exercise.feedback)
    if spec.name == "tuple" and isinstance(actual, list) and isinstance(expected, list):
        problems = []
        for position, (part, wanted) in enumerate(zip(actual, expected, strict=False)):
            names = exercise.return_names
            what = names[position] if position < len(names) else f"item {position}"
            problem = compare.value_problem(part, wanted, what, feedback, exercise.tolerance)
            if problem:
                problems.append(problem if problem.startswith(what) else f"{what}: {problem}")
        return problems[:1]  # the first difference is the one to fix; the rest usually follow
    problem = compare.value_problem(
        actual, expected, "your return value", feedback, exercise.tolerance
    )
    return [problem] if problem else []


def _unrun(case: Case, message: str) -> CaseResult:
    """The row of a case that never ran, saying why."""
    return CaseResult(
        name=case.name,
        status=Status.error,
        group=Group(case.group),
        hint=case.hint,
        input=case.input,
        expected=case.expected.get("value"),
        message=message,
    )


def case_rows(exercise: Exercise, result: RunResult, cases: list[Case]) -> list[CaseResult]:
    """One row per case the job ran (``cases``, in its order): compared with its expectation,
    or, when the code did not load, saying it was not run."""
    if result.setup is not None:
        lead = SETUP_LEAD[result.setup.kind]
        return [_unrun(case, "not run: " + lead.lower()) for case in cases]
    # The case just before the first one not run is the one that spent a budget.
    first_not_run = next(
        (i for i, run in enumerate(result.cases) if run.outcome is Outcome.not_run), 0
    )
    spent_by = cases[first_not_run - 1].name if first_not_run else None
    spent = result.cases[first_not_run - 1].outcome if first_not_run else None
    rows = []
    for index, case in enumerate(cases):
        if index < len(result.cases):
            rows.append(case_row(exercise, case, result.cases[index], spent_by, spent))
        else:  # cannot happen with a well-behaved zygote; reported rather than hidden
            rows.append(_unrun(case, "this case did not run"))
    return rows


def grade_report(
    exercise: Exercise,
    result: RunResult,
    rows: list[CaseResult],
    *,
    mode: Mode,
    duration_ms: float,
    seed: int | None = None,
    replayed_seed: int | None = None,
    check: WholeCheck | None = None,
    check_result: RunResult | None = None,
) -> Report:
    """The report of a grade: the cases' ``rows`` (from ``case_rows`` on the learner's
    ``result``), then the rows of the ``check`` over the whole function on its merged
    ``check_result``; the verdict is that of the first row that did not pass, the code's
    failure to load when it did not."""
    cases_passed = result.setup is None and all(row.status == Status.passed for row in rows)
    check_rows = []
    if check is not None and check_result is not None:
        check_rows = check.rows(check_result, limits_text(exercise), not cases_passed)
    tests = rows + check_rows
    passed = sum(test.status == Status.passed for test in tests)
    message = None
    if result.setup is not None:
        status, verdict = Status.error, SETUP_VERDICT[result.setup.kind]
        message = setup_message(exercise, result.setup)
    elif passed == len(tests):
        status, verdict = Status.passed, Verdict.accepted
    else:
        status = Status.failed
        # Each row's outcome in the sandbox (None: it has none, as a case the job never
        # reached): what an error row's verdict is named after.
        outcomes = _outcomes(result, len(rows))
        outcomes += _outcomes(check_result or RunResult(), len(check_rows))
        verdict = next(
            _verdict_of(test, outcome)
            for test, outcome in zip(tests, outcomes, strict=True)
            if test.status != Status.passed
        )
    return Report(
        status=status,
        mode=mode,
        seed=seed,
        replayed_seed=replayed_seed,
        verdict=verdict,
        message=message,
        passed=passed,
        total=len(tests),
        duration_ms=round(duration_ms, 3),
        tests=tests,
    )


def _verdict_of(row: CaseResult, outcome: Outcome | None) -> Verdict:
    """The verdict a row that did not pass gives the report: a wrong answer, or the error its
    sandbox outcome names."""
    if row.status == Status.failed:
        return Verdict.wrong_answer
    if outcome is None:  # a case the job never reached
        return Verdict.runtime_error
    return CASE_VERDICT.get(outcome, Verdict.runtime_error)


def _outcomes(result: RunResult, count: int) -> list[Outcome | None]:
    """The outcomes of the first ``count`` cases of ``result``, None past its last."""
    runs = result.cases[:count]
    return [run.outcome for run in runs] + [None] * (count - len(runs))


def build_report(
    exercise: Exercise,
    result: RunResult,
    duration_ms: float,
    cases: list[Case] | None = None,
    mode: Mode = Mode.run,
    seed: int | None = None,
) -> Report:
    """The report of one job of the learner's on ``cases`` (the examples unless given), in
    its order: no random cases, no check."""
    cases = list(exercise.cases) if cases is None else cases
    rows = case_rows(exercise, result, cases)
    return grade_report(exercise, result, rows, mode=mode, duration_ms=duration_ms, seed=seed)


SETUP_LEAD = {
    SetupKind.compile: "Your code does not compile",
    SetupKind.refused: "The judge does not allow part of your code",
    SetupKind.module: "Your code raised an error while it was being loaded",
    SetupKind.missing_entry: "Your code is missing the function to grade",
    SetupKind.timeout: "Your code took too long to load",
    SetupKind.memory: "Your code used too much memory while loading",
    SetupKind.crashed: "Your code crashed while loading",
    SetupKind.output: "Your code printed too much while loading",
}


def setup_detail(exercise: Exercise, setup: SetupFailure) -> str:
    """What went wrong while the code was loading, after the lead: the compiler's, the policy's
    or the exception's own text, or the judge's words for what the sandbox reported as data."""
    limits = exercise.limits
    if setup.kind is SetupKind.missing_entry and not setup.message:
        found = f" (found a {setup.found} with that name)" if setup.found else ""
        return f"define a function named {exercise.entry_point}{found}"
    if setup.kind is SetupKind.output and not setup.message:
        cap_kb = limits.output_bytes // 1024
        return f"your code printed more than {cap_kb} KB while it was being loaded"
    if setup.kind is SetupKind.timeout and not setup.message:
        return f"used up the time budget of {limits.time_ms} ms"
    if setup.kind is SetupKind.crashed:
        return compare.process_end(setup.exit_status, setup.message, "while it was being loaded")
    return setup.message


def setup_message(exercise: Exercise, setup: SetupFailure) -> str | None:
    """The report's message when the code did not load: the lead, the line, the detail."""
    where = f"line {setup.line}: " if setup.line else ""
    lead = SETUP_LEAD[setup.kind]
    return compare.scrub(f"{lead}: {where}{setup_detail(exercise, setup)}")
