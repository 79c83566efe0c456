"""The JSON contract of the judge (pydantic): reports, exercises, hints, health.

Public models only carry what a learner may see: no expected output of a hidden case and no
reference code can be expressed by them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

# The largest 64-bit signed integer: the largest seed (the history keeps seeds in a BIGINT
# column) and the bound on a custom input's integers (a float conversion of a larger one
# overflows, and numpy's int64 holds no more).
INT64_MAX = 2**63 - 1
MAX_SEED = INT64_MAX
SEED_RANGE = f"an integer from 0 to 2**{MAX_SEED.bit_length()} - 1"
INT64_RANGE = f"±(2**{INT64_MAX.bit_length()} - 1)"


def _without_bom(value: Any) -> Any:
    """A learner's code without the byte-order mark some editors put first (Python drops it
    when it runs a file, and the CLI does; pasted into a page, it would not compile)."""
    return value.removeprefix("\ufeff") if isinstance(value, str) else value


# The ``code`` of a Run, Submit or custom run.
LearnerCode = Annotated[str, BeforeValidator(_without_bom)]


def integral(value: Any) -> Any:
    """An integral JSON number written with a fraction (``1290.0``) as the integer it is: JSON
    Schema counts it an integer, so a client that sends it must not be refused. Anything else
    is left for the field's own (strict) validation to judge."""
    if type(value) is float and value.is_integer():
        return int(value)
    return value


class Status(StrEnum):
    passed = "pass"
    failed = "fail"
    error = "error"


class Verdict(StrEnum):
    accepted = "accepted"
    wrong_answer = "wrong_answer"
    runtime_error = "runtime_error"
    compile_error = "compile_error"
    time_limit_exceeded = "time_limit_exceeded"
    memory_limit_exceeded = "memory_limit_exceeded"
    output_limit_exceeded = "output_limit_exceeded"
    rejected = "rejected"


class Mode(StrEnum):
    """What a report graded: the examples (run), everything (submit) or one input (custom)."""

    run = "run"
    submit = "submit"
    custom = "custom"


class Group(StrEnum):
    """Where a report's test came from, in the order reports list them."""

    example = "example"
    extra = "extra"
    random = "random"
    custom = "custom"
    check = "check"


class Chart(BaseModel):
    """A distribution check's numbers: the target against the learner's frequencies per token."""

    tokens: list[int]
    target: list[float]  # p of each token
    observed: list[float]  # the learner's relative frequency of each token
    trials: int
    statistic: float  # chi-square over the (pooled) bins
    threshold: float  # the statistic a correct step exceeds with probability below 1e-6
    passed: bool
    # The chart's words: what was counted, per what, and the law's name beside the learner's.
    counted: str = "first token"
    unit: str = "steps"
    law: str = "target p"


class CaseResult(BaseModel):
    """One test case as the learner sees it after grading."""

    name: str
    status: Status
    group: Group = Group.example
    hint: int | None = None  # a failing case's tied hint (1-based), offered beside the row
    input: Any = None
    expected: Any = None
    actual: Any = None
    message: str | None = None
    output: str | None = None
    duration_ms: float = 0.0
    chart: Chart | None = None  # check rows only: what the page draws


class Report(BaseModel):
    """The outcome of one submission (after the Exercism test-runner interface, v3)."""

    status: Status
    mode: Mode = Mode.run
    seed: int | None = Field(None, description="the random cases' seed (Submit only)")
    replayed_seed: int | None = Field(
        default=None,
        description="Submit with a seed: the earlier seed whose random cases were run again, "
        "beside fresh ones of `seed`",
    )
    verdict: Verdict
    message: str | None = None
    passed: int = 0
    total: int = 0
    duration_ms: float = 0.0
    tests: list[CaseResult] = Field(default_factory=list)


class ExerciseSummary(BaseModel):
    id: str
    title: str
    difficulty: str
    summary: str


class TheoryPublic(BaseModel):
    """An exercise's theory page as blocks (app/theory.py says their shapes); none: no page."""

    title: str | None = None
    blocks: list[dict[str, Any]] = Field(default_factory=list)


class Section(BaseModel):
    """A group of the home page: its name and its exercises' ids, in their order."""

    name: str
    exercises: list[str]


class CasePublic(BaseModel):
    name: str
    input: Any


class LimitsPublic(BaseModel):
    time_ms: int
    memory_mb: int


class ExercisePublic(BaseModel):
    """Everything the exercise page needs, and by construction nothing a learner must not see."""

    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    difficulty: str
    summary: str
    section: str
    statement: str
    starter_code: str
    entry_point: str
    related: list[str]
    tests: list[CasePublic]
    submit_cases: int = Field(0, description="how many cases Submit adds to the examples")
    hint_count: int
    limits: LimitsPublic


class Hint(BaseModel):
    index: int
    total: int
    text: str


class Submission(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: LearnerCode
    mode: Literal["run", "submit"] = Field(
        "run", description='"run": the six examples; "submit": examples, extra and random cases'
    )
    seed: Annotated[int | None, BeforeValidator(integral)] = Field(
        None,
        strict=True,  # true and "5" are not seeds: pydantic's lax mode would take them as 1 and 5
        ge=0,
        le=MAX_SEED,
        description="Submit only: replay the random cases of an earlier report's seed",
    )

    @field_validator("seed")
    @classmethod
    def _seed_is_for_submit(cls, seed: int | None, info: ValidationInfo) -> int | None:
        # A Run grades the six examples, which draw nothing: a seed there would be ignored, and
        # a learner who sent one expects it to do something.
        if seed is not None and info.data.get("mode") != "submit":
            raise PydanticCustomError(
                "seed_without_submit",
                'only a Submit replays a seed (send "mode": "submit"); a Run grades the six '
                "examples, which draw no random cases",
            )
        return seed


class CustomRun(BaseModel):
    """The learner's code and an input of their own, keyed by parameter."""

    model_config = ConfigDict(extra="forbid")

    code: LearnerCode
    input: dict[str, Any]


class ErrorBody(BaseModel):
    detail: str


class Lane(BaseModel):
    """One lane of the warm pool: the jobs in it and how many it holds."""

    model_config = ConfigDict(extra="forbid")

    in_use: int
    capacity: int


class SlowLane(Lane):
    memory_mb_bound: int = Field(
        description="what the parked children may hold at most, on top of their interpreter"
    )


class Lanes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fast: Lane = Field(description="jobs running at full priority, one per worker")
    slow: SlowLane = Field(description="jobs demoted past their CPU share, parked")
    queue: Lane = Field(description="jobs waiting for a worker")


class PoolHealth(BaseModel):
    """The warm pool as ``sandbox.Pool.status()`` reports it (a field it adds or drops fails
    here, and so in the tests, rather than drifting)."""

    model_config = ConfigDict(extra="forbid")

    alive: bool = Field(description="the zygote is up and the pool not closed")
    workers: int
    capacity: int = Field(description="jobs the pool takes before it answers 503")
    lanes: Lanes
    in_flight: int
    completed: int
    restarts: int = Field(description="times the zygote was started again")
    zygote_pid: int | None


class Health(BaseModel):
    """Liveness plus the confinement layers in force and the worker pool's state."""

    status: str = Field(
        description='"ok" while the service answers; "degraded" while the history cannot write'
    )
    sandbox: dict[str, bool] = Field(description="each confinement layer and whether it is on")
    pool: PoolHealth = Field(description="workers, lanes (in use / capacity), the zygote")
    history: dict[str, Any] | None = Field(
        None,
        description="the submission history: its database (sqlite or postgresql), its state "
        '("ok", "retrying" while writes fail, "stalled" while one hangs), the rows waiting to be '
        "written (backlog), those kept in the local spool (spooled), those lost past the bounds, "
        "and the last error while not ok; null when the history is off",
    )
