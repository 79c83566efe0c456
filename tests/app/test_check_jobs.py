"""A pair's chunks, added back into one result: counts summed, an invalid trial numbered within
the pair, a chunk that failed or sent nonsense reported as it came."""

from __future__ import annotations

from app.check_jobs import Chunk, chunks, merged_result
from app.checks import plain
from app.distribution import DistributionCheck, Pair, check_rows
from app.schemas import Status
from sandbox import CaseRun, ErrorInfo, Outcome, RunResult, SetupFailure, SetupKind
from sandbox.values import tag

PAIR = Pair("n", ((0.5, 0.5), (0.5, 0.5)), ((0.25, 0.75),), trials=100, seed=7)
CHECK = DistributionCheck(driver="", pairs=(PAIR, PAIR))
LIMITS = {"time": "too long", "memory": "too big", "output": "16 KB"}


def _done(pair: int, first_trial: int, value: object, **fields: object) -> tuple[Chunk, RunResult]:
    run = CaseRun(outcome=Outcome.returned, value=tag(value), **fields)  # type: ignore[arg-type]
    return Chunk(pair, first_trial, 50, 7), RunResult(cases=[run])


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
    first, second = (plain(case.value) for case in merged.cases)
    assert first == {"trials": 100, "first": [55, 45], "lengths": [25, 75], "draws": 130}
    assert merged.cases[0].duration_ms == 5.0
    assert second == _counts([50, 50], [25, 75])
    rows = check_rows(CHECK, merged, LIMITS, exact_failed=False)
    assert [row.status for row in rows] == [Status.passed, Status.passed]


def test_an_invalid_trial_is_numbered_within_its_pair() -> None:
    invalid = {"invalid": {"trial": 3, "reason": "range", "token": 9}}
    done = [_done(0, 0, _counts([30, 20], [40, 10])), _done(0, 50, invalid)]
    merged = merged_result(DistributionCheck(driver="", pairs=(PAIR,)), done)
    assert plain(merged.cases[0].value) == {"invalid": {"trial": 53, "reason": "range", "token": 9}}


def test_a_chunk_that_failed_or_sent_nonsense_is_the_pairs_result() -> None:
    crashed = CaseRun(outcome=Outcome.raised, error=ErrorInfo("ValueError", "boom"))
    done = [
        _done(0, 0, _counts([30, 20], [40, 10])),
        (Chunk(0, 50, 50, 1007), RunResult(cases=[crashed])),
        _done(1, 0, _counts([30, 20], [40, 10])),
        _done(1, 50, {"trials": 50, "first": "lots"}),
    ]
    merged = merged_result(CHECK, done)
    assert merged.cases[0] is crashed
    assert plain(merged.cases[1].value) == {"trials": 50, "first": "lots"}
    rows = check_rows(CHECK, merged, LIMITS, exact_failed=False)
    assert rows[0].status == Status.error and "ValueError" in (rows[0].message or "")
    assert rows[1].status == Status.error and "did not add up" in (rows[1].message or "")
    # A chunk that did not load: the whole check did not (every chunk runs the same code).
    unloaded = RunResult(setup=SetupFailure(SetupKind.compile, "bad"))
    merged = merged_result(CHECK, [*done[:1], (Chunk(1, 0, 100, 7), unloaded)])
    assert merged.setup is not None and merged.cases == []
    # A pair none of whose chunks answered says so rather than borrowing another's.
    lonely = merged_result(CHECK, done[:1])
    assert lonely.cases[1].outcome is Outcome.crashed


def test_an_invalid_report_the_driver_never_sends_is_left_as_it_came() -> None:
    odd = [{"invalid": {"trial": "3"}}, {"invalid": {"trial": 3, "token": [1.5, None, True]}}]
    for value in odd:
        done = [_done(0, 0, _counts([30, 20], [12, 38])), _done(0, 50, value)]
        merged = merged_result(DistributionCheck(driver="", pairs=(PAIR,)), done)
        shown = plain(merged.cases[0].value)
        assert shown["invalid"]["trial"] in ("3", 53)  # numbered within the pair when it can be
        rows = check_rows(DistributionCheck(driver="", pairs=(PAIR,)), merged, LIMITS, False)
        assert rows[0].status == Status.failed and rows[0].message
