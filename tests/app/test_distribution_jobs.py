"""A pair's chunks, added back into one result: counts summed into one typed value, an invalid
trial numbered within the pair, a chunk that failed reported as it came and one that sent
nonsense as unreadable; a first look run alone, the rest only when the look did not settle the
pair; short chunks packed into one job."""

from __future__ import annotations

from app.grading.check_counts import DraftCounts, FirstOutside, InvalidTrial, Unreadable
from app.grading.distribution import DistributionCheck, Pair
from app.grading.distribution_jobs import (
    Chunk,
    batches,
    check_jobs,
    chunks,
    first_stage,
    merged_result,
    second_stage,
)
from app.grading.distribution_verdict import check_rows
from app.schemas import Status
from sandbox import CaseRun, ErrorInfo, Limits, Outcome, RunResult, SetupFailure, SetupKind
from sandbox.values import tag

PAIR = Pair("n", ((0.5, 0.5), (0.5, 0.5)), ((0.25, 0.75),), trials=100, seed=7)
CHECK = DistributionCheck(driver="", pairs=(PAIR, PAIR))
LIMITS = {"time": "too long", "memory": "too big", "output": "16 KB"}


def _done(pair: int, first_trial: int, value: object, **fields: object) -> tuple[Chunk, RunResult]:
    run = CaseRun(outcome=Outcome.returned, value=tag(value), **fields)  # type: ignore[arg-type]
    return (Chunk(pair, first_trial, 50, 7),), RunResult(cases=[run])


def _counts(first: list[int], lengths: list[int], draws: int = 60) -> dict:
    return {"trials": sum(first), "first": first, "lengths": lengths, "draws": draws}


def test_chunks_split_the_trials_evenly_and_the_first_keeps_the_seed() -> None:
    assert [(c.first_trial, c.trials, c.seed) for c in chunks(PAIR, 0, most=40)] == [
        (0, 34, 7),
        (34, 33, 1007),
        (67, 33, 2007),
    ]
    assert [(c.first_trial, c.trials) for c in chunks(PAIR, 1, most=100)] == [(0, 100)]


def test_the_chunks_counts_add_up_to_one_pair() -> None:
    done = [
        _done(0, 0, _counts([30, 20], [12, 38]), duration_ms=2.0),
        _done(0, 50, _counts([25, 25], [13, 37], draws=70), duration_ms=3.0),
        _done(1, 0, _counts([50, 50], [25, 75])),
    ]
    merged = merged_result(CHECK, done)
    first, second = (case.value for case in merged.cases)
    # The driver did not count the first tokens a correct step never returns: none.
    assert first == DraftCounts(100, (55, 45), (25, 75), draws=130, outside=0, first_outside=None)
    assert merged.cases[0].duration_ms == 5.0
    assert second == DraftCounts(100, (50, 50), (25, 75), draws=60)
    rows = check_rows(CHECK, merged, LIMITS, exact_failed=False)
    assert [row.status for row in rows] == [Status.passed, Status.passed]


def test_an_invalid_trial_is_numbered_within_its_pair() -> None:
    invalid = {"invalid": {"trial": 3, "reason": "range", "token": 9}}
    done = [_done(0, 0, _counts([30, 20], [40, 10])), _done(0, 50, invalid)]
    merged = merged_result(DistributionCheck(driver="", pairs=(PAIR,)), done)
    assert merged.cases[0].value == InvalidTrial({"trial": 53, "reason": "range", "token": 9})


def test_a_chunk_that_failed_or_sent_nonsense_is_the_pairs_result() -> None:
    crashed = CaseRun(outcome=Outcome.raised, error=ErrorInfo("ValueError", "boom"))
    done = [
        _done(0, 0, _counts([30, 20], [40, 10])),
        ((Chunk(0, 50, 50, 1007),), RunResult(cases=[crashed])),
        _done(1, 0, _counts([30, 20], [40, 10])),
        _done(1, 50, {"trials": 50, "first": "lots"}),
    ]
    merged = merged_result(CHECK, done)
    assert merged.cases[0] is crashed
    assert merged.cases[1].value == Unreadable()
    rows = check_rows(CHECK, merged, LIMITS, exact_failed=False)
    assert rows[0].status == Status.error and "ValueError" in (rows[0].message or "")
    assert rows[1].status == Status.error and "did not add up" in (rows[1].message or "")
    # A chunk that did not load: the whole check did not (every chunk runs the same code).
    unloaded = RunResult(setup=SetupFailure(SetupKind.compile, "bad"))
    merged = merged_result(CHECK, [*done[:1], ((Chunk(1, 0, 100, 7),), unloaded)])
    assert merged.setup is not None and merged.cases == []
    # A pair none of whose chunks answered says so rather than borrowing another's.
    lonely = merged_result(CHECK, done[:1])
    assert lonely.cases[1].outcome is Outcome.crashed


def test_an_invalid_report_the_driver_never_sends_is_left_as_it_came() -> None:
    odd = [{"invalid": {"trial": "3"}}, {"invalid": {"trial": 3, "token": [1.5, None, True]}}]
    for value in odd:
        done = [_done(0, 0, _counts([30, 20], [12, 38])), _done(0, 50, value)]
        merged = merged_result(DistributionCheck(driver="", pairs=(PAIR,)), done)
        shown = merged.cases[0].value
        assert isinstance(shown, InvalidTrial) and shown.record is not None
        assert shown.record["trial"] in ("3", 53)  # numbered within the pair when it can be
        rows = check_rows(DistributionCheck(driver="", pairs=(PAIR,)), merged, LIMITS, False)
        assert rows[0].status == Status.failed and rows[0].message


LOOKING = Pair("l", PAIR.p, PAIR.q, trials=500, seed=3, first_look=200)


def test_a_first_look_is_its_own_chunk_and_the_rest_follow_it() -> None:
    assert [(c.first_trial, c.trials, c.seed) for c in chunks(LOOKING, 0, most=200)] == [
        (0, 200, 3),
        (200, 150, 1003),
        (350, 150, 2003),
    ]
    check = DistributionCheck(driver="", pairs=(LOOKING, PAIR))
    # The first stage: the look of a pair that has one, all the trials of one that has not.
    assert first_stage(check) == [Chunk(0, 0, 200, 3), Chunk(1, 0, 100, 7)]


def test_short_chunks_share_a_job_and_each_gets_a_case() -> None:
    check = DistributionCheck(driver="drive", pairs=(LOOKING, PAIR))
    stage = first_stage(check)
    assert batches(stage, most=500) == [tuple(stage)]
    assert batches(stage, most=250) == [(stage[0],), (stage[1],)]
    ((batch, job),) = check_jobs(check, "code", "f", "", Limits(time_ms=1000), most=500)
    assert batch == tuple(stage)
    assert [case["trials"] for case in job.cases] == [200, 100]
    assert [case["seed"] for case in job.cases] == [3, 7]
    assert job.limits.time_ms == 1000  # 300 steps at 2 ms fit the exercise's budget


def _looked(first: list[int], lengths: list[int]) -> RunResult:
    counts = {"trials": sum(first), "first": first, "lengths": lengths, "draws": sum(first)}
    return RunResult(cases=[CaseRun(outcome=Outcome.returned, value=tag(counts))])


def _merged_look(check: DistributionCheck, result: RunResult) -> RunResult:
    """A first look's job result as the judge hands it to the second stage: merged."""
    return merged_result(check, [((Chunk(0, 0, 200, 3),), result)])


def test_the_rest_runs_only_when_the_look_did_not_settle_the_pair() -> None:
    check = DistributionCheck(driver="", pairs=(LOOKING,))
    # p[0] = (0.5, 0.5), gamma 1, alpha 0.75: 1.75 tokens per step on average.
    settled = _merged_look(check, _looked([100, 100], [50, 150]))
    assert second_stage(check, settled) == []
    # chi-square 6.5, past the 5% bound of 3.84
    unsure = _merged_look(check, _looked([118, 82], [50, 150]))
    assert second_stage(check, unsure) == chunks(LOOKING, 0)[1:]
    # 1.6 tokens per step: not clearly right
    long_steps = _merged_look(check, _looked([100, 100], [80, 120]))
    assert second_stage(check, long_steps) == chunks(LOOKING, 0)[1:]
    # A look that already failed for certain, crashed, or did not load needs no more trials.
    crashed = RunResult(cases=[CaseRun(outcome=Outcome.raised, error=ErrorInfo("E", "x"))])
    invalid = RunResult(
        cases=[CaseRun(outcome=Outcome.returned, value=tag({"invalid": {"trial": 1}}))]
    )
    unloaded = RunResult(setup=SetupFailure(SetupKind.compile, "bad"))
    for result in (crashed, invalid, unloaded):
        assert second_stage(check, _merged_look(check, result)) == []


def test_a_settled_look_is_judged_on_its_trials_and_says_so() -> None:
    check = DistributionCheck(driver="", pairs=(LOOKING,))
    merged = merged_result(check, [((Chunk(0, 0, 200, 3),), _looked([100, 100], [50, 150]))])
    (row,) = check_rows(check, merged, LIMITS, exact_failed=False)
    assert row.status == Status.passed and row.chart is not None and row.chart.trials == 200
    assert "settled at the first look: 200 of the 500 trials" in (row.message or "")
    # The look and the rest added: judged on all 500, no word of a first look.
    look, rest = chunks(LOOKING, 0)
    done = [((look,), _looked([118, 82], [50, 150])), ((rest,), _looked([150, 150], [80, 220]))]
    merged = merged_result(check, done)
    (row,) = check_rows(check, merged, LIMITS, exact_failed=False)
    assert row.chart is not None and row.chart.trials == 500
    assert "first look" not in (row.message or "")


def test_replacements_outside_the_residual_add_up_and_are_named() -> None:
    # p[0] = (0.5, 0.5) against q[0] = (0.25, 0.75): token 0 is always accepted (p >= q), and
    # only token 0 may replace a rejected token 1.
    check = DistributionCheck(driver="", pairs=(PAIR,))
    seen = {"trial": 4, "draft": 0, "token": 1}
    done = [
        _done(0, 0, _counts([25, 25], [10, 40])),
        _done(0, 50, {**_counts([30, 20], [12, 38]), "outside": 2, "first_outside": seen}),
    ]
    merged = merged_result(check, done)
    counts = merged.cases[0].value
    assert isinstance(counts, DraftCounts) and counts.outside == 2
    assert counts.first_outside == FirstOutside(trial=54, draft=0, token=1)
    (row,) = check_rows(check, merged, LIMITS, exact_failed=True)
    assert row.status == Status.failed
    assert row.message is not None and row.message.startswith(
        "on trial 54 the draft proposed token 0 first and your step returned token 1 in its "
        "place, but p = 0.5 >= q = 0.25 there, so a correct step always keeps token 0; "
        "2 of your 100 steps began with such a replacement, which a correct step never makes"
    )
    # A count that cannot be: more than the trials, or a first one missing or out of range.
    for odd in (
        {"outside": 60, "first_outside": seen},
        {"outside": 1, "first_outside": None},
        {"outside": 1, "first_outside": {**seen, "token": 7}},
        {"outside": 0, "first_outside": seen},
    ):
        done = [_done(0, 0, {**_counts([25, 25], [10, 40]), **odd})]
        (row,) = check_rows(check, merged_result(check, done), LIMITS, exact_failed=False)
        assert row.status == Status.error and "did not add up" in (row.message or ""), odd
