"""grade(exercise, code) -> Report: a sandbox run, then the trusted checks, then feedback.

The sandbox only ever sees the learner's code, the entry point and the case *inputs*; expected
outputs stay here, on the trusted side, and are compared with the raw outputs it sends back.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import Future
from typing import Any

from app import checks
from app.catalog import Case, Exercise
from app.errors import JudgeError, PayloadTooLarge, Saturated
from app.schemas import CaseResult, Report, Status, Verdict
from sandbox.pool import Pool, PoolSaturated, SandboxUnavailable
from sandbox.protocol import CaseRun, RunResult, SetupFailure


def job_arguments(exercise: Exercise, code: str) -> dict[str, Any]:
    """What the sandbox gets to grade ``code``: the case inputs, never what is expected of them.

    The keyword arguments of ``Pool.submit`` and of ``sandbox.pool.job_document``.
    """
    return {
        "code": code,
        "entry_point": exercise.entry_point,
        "cases": exercise.case_inputs(),
        "parameters": exercise.parameters,
        "limits": exercise.limits,
        "random_mode": exercise.random_mode,
        "rng_argument": exercise.random_argument,
        "helpers": exercise.helpers_code,
    }


class SandboxDown(JudgeError):
    status = 503
    detail = "The grading sandbox is unavailable; retry shortly."

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail, headers={"Retry-After": "2"})


CASE_VERDICT = {
    "timeout": Verdict.time_limit_exceeded,
    "memory": Verdict.memory_limit_exceeded,
    "output": Verdict.output_limit_exceeded,
    "raised": Verdict.runtime_error,
    "crashed": Verdict.runtime_error,
}
SETUP_VERDICT = {
    "compile": Verdict.compile_error,
    "refused": Verdict.rejected,
    "module": Verdict.runtime_error,
    "missing_entry": Verdict.runtime_error,
    "crashed": Verdict.runtime_error,
    "timeout": Verdict.time_limit_exceeded,
    "memory": Verdict.memory_limit_exceeded,
    "output": Verdict.output_limit_exceeded,
}


def _limits_text(exercise: Exercise) -> dict[str, str]:
    limits = exercise.limits
    return {
        "time": f"the case ran longer than {limits.time_ms} ms",
        "memory": f"your code used more than {limits.memory_mb} MB",
        "output": f"{limits.output_bytes // 1024} KB",
    }


def check_case(exercise: Exercise, case: Case, run: CaseRun) -> CaseResult:
    """Compare one raw case outcome with the stored expectation."""
    expected = case.expected.get("value")
    output = None
    if run.output:
        # The learner's own prints, minus the judge's paths (an exception message they print
        # can name a file of the judge's, as a traceback would).
        output = checks.scrub(run.output) or ""
        output += "\n[output cut: limit reached]" if run.output_truncated else ""

    def result(status: Status, actual: Any, message: str | None) -> CaseResult:
        return CaseResult(
            name=case.name,
            status=status,
            input=case.input,
            expected=expected,
            actual=actual,
            message=checks.scrub(message),
            output=output,
            duration_ms=round(run.duration_ms, 3),
        )

    if run.outcome == "raised" and run.error and run.error.type == "RandomStreamExhausted":
        # Drawing more numbers than the case scripts is a logic mistake, not a crash.
        message = checks.exhausted_message(run.draws, case.expected.get("draws"))
        return result(Status.failed, None, message)
    if run.outcome != "returned":
        message = checks.error_message(run, _limits_text(exercise))
        return result(Status.error, None, message)

    actual = checks.plain(run.value)
    spec = checks.parse_type(exercise.returns)
    names = exercise.return_names
    problems: list[str] = []
    type_problem = checks.type_problem(run.value, spec, "your return value", names)
    if type_problem:
        problems.append(type_problem)
    else:
        problems.extend(_value_problems(exercise, spec, actual, expected))
    draws = checks.draws_problem(run.draws, case.expected.get("draws"))
    if draws:
        problems.append(draws)
    kinds = {name: kind for name, kind in exercise.parameters.items() if kind != "rng"}
    mutation = checks.mutation_problem(case.input, run.inputs_after, kinds)
    if mutation:
        problems.append(mutation)
    status = Status.failed if problems else Status.passed
    return result(status, actual, "; ".join(problems) if problems else None)


def _value_problems(
    exercise: Exercise, spec: checks.TypeSpec, actual: Any, expected: Any
) -> list[str]:
    feedback = checks.Feedback(**exercise.feedback)
    if spec.name == "tuple" and isinstance(actual, list) and isinstance(expected, list):
        problems = []
        for position, (part, wanted) in enumerate(zip(actual, expected, strict=False)):
            names = exercise.return_names
            what = names[position] if position < len(names) else f"item {position}"
            problem = checks.value_problem(part, wanted, what, feedback, exercise.tolerance)
            if problem:
                problems.append(problem if problem.startswith(what) else f"{what}: {problem}")
        return problems[:1]  # the first difference is the one to fix; the rest usually follow
    problem = checks.value_problem(
        actual, expected, "your return value", feedback, exercise.tolerance
    )
    return [problem] if problem else []


def build_report(exercise: Exercise, result: RunResult, duration_ms: float) -> Report:
    """Turn raw sandbox outcomes into the report of architecture.md."""
    total = len(exercise.cases)
    if result.setup is not None:
        return _setup_report(exercise, result.setup, duration_ms)
    tests = []
    for index, case in enumerate(exercise.cases):
        if index < len(result.cases):
            tests.append(check_case(exercise, case, result.cases[index]))
        else:  # cannot happen with a well-behaved zygote; reported rather than hidden
            tests.append(
                CaseResult(
                    name=case.name,
                    status=Status.error,
                    input=case.input,
                    expected=case.expected.get("value"),
                    message="this case did not run",
                )
            )
    passed = sum(test.status == Status.passed for test in tests)
    verdict = Verdict.accepted
    for test, run in zip(tests, result.cases, strict=False):
        if test.status == Status.failed:
            verdict = Verdict.wrong_answer
            break
        if test.status == Status.error:
            verdict = CASE_VERDICT.get(run.outcome, Verdict.runtime_error)
            break
    else:
        if passed != total:
            verdict = Verdict.runtime_error
    return Report(
        status=Status.passed if passed == total else Status.failed,
        verdict=verdict,
        message=None,
        passed=passed,
        total=total,
        duration_ms=round(duration_ms, 3),
        tests=tests,
    )


def _setup_report(exercise: Exercise, setup: SetupFailure, duration_ms: float) -> Report:
    where = f"line {setup.line}: " if setup.line else ""
    lead = {
        "compile": "Your code does not compile",
        "refused": "The judge does not allow part of your code",
        "module": "Your code raised an error while it was being loaded",
        "missing_entry": "Your code is missing the function to grade",
        "timeout": "Your code took too long to load",
        "memory": "Your code used too much memory while loading",
        "crashed": "Your code crashed while loading",
        "output": "Your code printed too much while loading",
    }[setup.kind]
    message = checks.scrub(f"{lead}: {where}{setup.message}")
    tests = [
        CaseResult(
            name=case.name,
            status=Status.error,
            input=case.input,
            expected=case.expected.get("value"),
            message="not run: " + lead.lower(),
        )
        for case in exercise.cases
    ]
    return Report(
        status=Status.error,
        verdict=SETUP_VERDICT[setup.kind],
        message=message,
        passed=0,
        total=len(exercise.cases),
        duration_ms=round(duration_ms, 3),
        tests=tests,
    )


class Judge:
    """Grades submissions through one warm sandbox pool; safe to share across threads."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    @classmethod
    def create(cls, workers: int | None = None, queue_size: int = 64) -> Judge:
        """Start the zygote (blocking, ~0.3 s) and return a judge using it."""
        return cls(Pool(workers=workers, queue_size=queue_size))

    def submit(self, exercise: Exercise, code: str) -> Future[RunResult]:
        if not isinstance(code, str):
            raise TypeError("code must be a string")
        size = len(code.encode("utf-8", errors="surrogatepass"))
        if size > exercise.limits.code_bytes:
            raise PayloadTooLarge(
                f"code is {size} bytes; the limit is {exercise.limits.code_bytes} bytes"
            )
        try:
            return self.pool.submit(**job_arguments(exercise, code))
        except PoolSaturated as exc:
            raise Saturated(f"The judge is busy ({exc}); retry shortly.", retry_after=1) from None
        except SandboxUnavailable as exc:
            raise SandboxDown(str(exc)) from None

    def _wait_budget(self, exercise: Exercise) -> float:
        # Every case may use its full deadline, plus queueing behind the whole pool.
        per_job = (len(exercise.cases) + 1) * exercise.limits.time_ms / 1000
        return per_job * (1 + self.pool.capacity / max(1, self.pool.workers)) + 10

    def grade(self, exercise: Exercise, code: str) -> Report:
        """Blocking grade; raises Saturated (queue full) or SandboxDown."""
        started = time.perf_counter()
        future = self.submit(exercise, code)
        try:
            result = future.result(timeout=self._wait_budget(exercise))
        except SandboxUnavailable as exc:
            raise SandboxDown(str(exc)) from None
        except TimeoutError:
            raise SandboxDown("the sandbox did not answer in time") from None
        return build_report(exercise, result, (time.perf_counter() - started) * 1000)

    async def grade_async(self, exercise: Exercise, code: str) -> Report:
        """Never blocks the event loop; raises Saturated when the queue is full."""
        started = time.perf_counter()
        future = self.submit(exercise, code)
        try:
            result = await asyncio.wait_for(
                asyncio.wrap_future(future), timeout=self._wait_budget(exercise)
            )
        except SandboxUnavailable as exc:
            raise SandboxDown(str(exc)) from None
        except TimeoutError:
            raise SandboxDown("the sandbox did not answer in time") from None
        return build_report(exercise, result, (time.perf_counter() - started) * 1000)

    def health(self) -> dict[str, object]:
        """{"layers": {name: bool}, "pool": {...}} for /api/health and `judge doctor`."""
        return {"layers": self.pool.layers, "pool": self.pool.status()}

    def close(self) -> None:
        """Stops the zygote and every child; idempotent."""
        self.pool.close()
