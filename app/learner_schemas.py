"""The JSON contract of the learner's and the instructor's views of the history (pydantic).

No model here has a field for a learner's id or its hash: what identifies a learner cannot
leave through them by construction.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class Best(BaseModel):
    passed: int
    total: int


class ExerciseProgress(BaseModel):
    attempts: int = Field(description="graded Runs and Submits (custom-input runs aside)")
    solved: bool = Field(
        description="an accepted Submit (or an accepted Run where the exercise has no Submit cases)"
    )
    best: Best = Field(description="the attempt that passed the largest share of its cases")


class Progress(BaseModel):
    exercises: dict[str, ExerciseProgress] = Field(
        description="the exercises the caller has graded, by id; one never tried is absent"
    )


class SubmissionSummary(BaseModel):
    id: int
    exercise: str
    mode: str = Field(description='"run" or "submit"')
    verdict: str
    status: str
    passed: int
    total: int
    created_at: str = Field(description="ISO 8601, UTC")


class SubmissionDetail(SubmissionSummary):
    code: str


class HintRef(BaseModel):
    index: int = Field(description="1-based, as GET /api/exercises/{id}/hints/{n} counts")
    text: str


class FailedCase(BaseModel):
    name: str = Field(description='the case\'s name; every random case counts as "random cases"')
    group: str
    failed_by: int = Field(description="learners whose latest attempt failed this case")
    hint: HintRef | None = Field(description="the hint tied to the case, if any")


class DaySubmissions(BaseModel):
    day: str = Field(description="YYYY-MM-DD, UTC")
    submissions: int


class ExerciseStatistics(BaseModel):
    id: str
    title: str
    learners: int = Field(description="distinct learners (by their id's hash) who graded it")
    solved: int = Field(description="learners who solved it")
    solve_rate: float = Field(description="solved / learners, 0 to 1")
    median_attempts_to_solve: float | None = Field(
        description="over the solvers: grades up to and including the first accepted Submit"
    )
    submissions: int


class ExerciseReport(ExerciseStatistics):
    verdicts: dict[str, int] = Field(description="submissions per verdict, most first")
    cases: list[FailedCase] = Field(description="most-failed first")
    submissions_per_day: list[DaySubmissions] = Field(
        description="every day from the first submission to the last, at most a year"
    )
