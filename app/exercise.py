"""An exercise as the judge holds it once its folder has loaded: its metadata, its cases, and the
sandbox jobs that run code on their inputs (never on what is expected of them)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.grading import EXACT, DistributionCheck, InputCaps, SamplerCheck, Tolerance
from sandbox import Job, Limits, RandomMode

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
