"""Which cases a mode grades: Run the examples; Submit the examples, the stored extra cases and
fresh random cases whose expected outputs come from the reference, run in a child of its own.
"""

from __future__ import annotations

import secrets
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.catalog import Case, Exercise
from app.grading import feedback, reports
from sandbox import Outcome, RandomMode, RunResult


def fresh_seed() -> int:
    """A seed for one submission's random cases (kept in the report, so a failure replays)."""
    return secrets.randbelow(2**31)


def random_inputs(exercise: Exercise, seed: int) -> list[dict[str, Any]]:
    """The exercise's random cases for ``seed``, drawn by its trusted generator."""
    if exercise.random_case is None or exercise.random_cases == 0:
        return []
    rng = np.random.default_rng(seed)
    return [exercise.random_case(rng) for _ in range(exercise.random_cases)]


@dataclass
class RandomSet:
    """One Submit's random cases: their seed, their inputs, and the reference's job on them
    when it was started ahead (None: the Submit runs it beside the learner's job)."""

    seed: int
    inputs: list[dict[str, Any]]
    reference_ahead: Future[RunResult] | None = None


# Sets drawn ahead per exercise: the oldest is handed out first, so its reference has had the
# whole Submit before (and its idle cores) to answer. With one, Submits sent back to back found
# it still running three times in four and ran the reference as a third job of their own.
AHEAD = 2


class FreshCases:
    """Fresh seeds and their random cases, drawn ahead of the Submits of each exercise.

    Drawing them takes a Submit one to two milliseconds before its first job can start, and
    the reference's job on them a fifth of its sandbox time; both done ahead, as the previous
    Submit ends, are off the next one's path. Each set is handed out once, so every
    Submit still gets cases of its own; thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: dict[str, deque[RandomSet]] = {}
        self._drawing: set[str] = set()

    def take_set(self, exercise: Exercise) -> RandomSet:
        """The oldest set drawn ahead (with its reference job, if one was started), or one
        drawn now."""
        with self._lock:
            ready = self._ready.get(exercise.id)
            taken = ready.popleft() if ready else None
        if taken is not None:
            return taken
        seed = fresh_seed()
        return RandomSet(seed, random_inputs(exercise, seed))

    def restock(
        self,
        exercise: Exercise,
        reference: Callable[[list[dict[str, Any]]], Future[RunResult] | None] | None = None,
    ) -> None:
        """Draw sets until AHEAD wait (unless they are being drawn already), and start
        ``reference`` on each (a job of the sandbox pool; None when it could not be started)."""
        with self._lock:
            if exercise.id in self._drawing:
                return
            self._drawing.add(exercise.id)
        try:
            while True:
                with self._lock:
                    if len(self._ready.setdefault(exercise.id, deque())) >= AHEAD:
                        return
                seed = fresh_seed()
                drawn = random_inputs(exercise, seed)
                ahead = reference(drawn) if reference is not None and drawn else None
                with self._lock:
                    self._ready[exercise.id].append(RandomSet(seed, drawn, ahead))
        finally:
            with self._lock:
                self._drawing.discard(exercise.id)


def stored_cases(exercise: Exercise, submit: bool) -> list[Case]:
    """The examples, and for Submit the extra cases after them."""
    return list(exercise.cases) + (list(exercise.extra_cases) if submit else [])


def reference_problem(exercise: Exercise, result: RunResult | None, index: int) -> str | None:
    """Why the reference gave no answer for case ``index`` (None when it did)."""
    if result is None:
        return "the reference did not run"
    if result.setup is not None:
        return f"the reference did not load: {reports.setup_detail(exercise, result.setup)}"
    if index >= len(result.cases):
        return "the reference did not reach this input"
    run = result.cases[index]
    if run.outcome is Outcome.returned:
        if isinstance(run.value, dict) and run.value.get("t") == "too_big":
            # Past the sandbox's budget for a described value: nothing to compare against (a
            # custom input of a thousand beams), and a correct answer must not fail on it.
            return "the reference's result on this input is too large to compare"
        return None
    if run.outcome is Outcome.exhausted:
        return "the reference needs more scripted numbers than this input holds"
    error = run.error
    detail = f" ({error.message})" if error is not None and error.message else ""
    if run.outcome is Outcome.bad_input:
        shown = f" ({error.type}: {error.message})" if error is not None and error.message else ""
        return f"this input cannot be made into the function's arguments{shown}"
    if run.outcome is Outcome.raised and error is not None:
        return f"the reference raised {error.type}: {error.message}"
    if run.outcome is Outcome.crashed:
        # The sandbox's own sentence speaks of "your code"; here the code is the reference's.
        return "the reference's process ended before it answered this input"
    return {
        Outcome.timeout: "the reference ran out of time on this input",
        Outcome.memory: "the reference ran out of memory on this input",
        Outcome.output: "the reference's result on this input is too large to report",
    }.get(run.outcome, f"the reference did not finish ({run.outcome.value}){detail}")


# How the reference's run on a learner's own input can end that shows the input, not the code,
# to be the problem: it fits the declared kinds and caps, but not what the exercise assumes of
# it (a row too few, a token past the vocabulary: relations [custom] cannot state).
_INPUT_OUTCOMES = {
    Outcome.raised: "the reference raised",
    Outcome.bad_input: "it cannot be made into the function's arguments",
    Outcome.timeout: "the reference ran out of time on it",
    Outcome.memory: "the reference ran out of memory on it",
    Outcome.output: "the reference's result on it is too large to report",
    Outcome.crashed: "the reference's process ended before it answered",
}


def input_refusal(exercise: Exercise, result: RunResult | None) -> str | None:
    """The 422's detail when the reference's run on one custom input shows that input to be
    outside what the exercise accepts (None when the reference answered, or failed for a
    reason of the judge's own): named by the parameter where the outcome tells which."""
    if result is None or result.setup is not None or not result.cases:
        return None
    run = result.cases[0]
    if run.outcome is Outcome.exhausted and exercise.random_argument is not None:
        return (
            f"input.{exercise.random_argument}: the reference needs more scripted numbers "
            "than this input holds"
        )
    if run.outcome is Outcome.returned:
        too_big = isinstance(run.value, dict) and run.value.get("t") == "too_big"
        why = "the reference's result on it is too large to compare" if too_big else None
    else:
        why = _INPUT_OUTCOMES.get(run.outcome)
        error = run.error
        if why is not None and error is not None and error.message:
            why += f" {error.type}: {error.message}"
    if why is None:
        return None
    return f"input: outside what this exercise accepts (its statement says what it takes): {why}"


def expected_cases(
    exercise: Exercise,
    inputs: list[dict[str, Any]],
    result: RunResult | None,
    names: str | list[str],
    group: str,
) -> list[Case]:
    """Cases whose expectations are what the reference returned on ``inputs`` just now, named
    by ``names`` (one per input, or one pattern with ``{n}``, counted from 1)."""
    cases = []
    for index, case_input in enumerate(inputs):
        problem = reference_problem(exercise, result, index)
        expected: dict[str, Any] = {}
        if problem is None and result is not None:
            # Value, draws, the numbers drawn and the reference's trace, as regen stores them.
            generator = exercise.random_mode is RandomMode.generator
            expected = feedback.expected_from_run(result.cases[index], generator)
        label = names[index] if isinstance(names, list) else names.format(n=index + 1)
        cases.append(Case(label, case_input, expected, group=group, reference_problem=problem))
    return cases
