"""The one reading of a check's counts: the child's tagged value becomes typed counts, an
invalid call's record or a refusal, whatever the learner's code made the driver send; the
sampler's chunks added into one typed value, an invalid call numbered within its input."""

from __future__ import annotations

from typing import Any

import pytest

from app.grading import check_counts, sampler, sampler_jobs
from app.grading.check_counts import DraftCounts, InvalidTrial, SamplerCounts, Unreadable
from app.grading.distribution_jobs import Chunk
from sandbox import CaseRun, Outcome, RunResult
from sandbox.values import tag

DRAFT = {"trials": 4, "first": [1, 3], "lengths": [2, 2], "draws": 6}


def test_sound_counts_become_typed_values() -> None:
    assert check_counts.read(tag(DRAFT), DraftCounts) == DraftCounts(4, (1, 3), (2, 2), 6)
    sampled = {"trials": 3, "counts": [1, 2], "draws": 3}
    assert check_counts.read(tag(sampled), SamplerCounts) == SamplerCounts(3, (1, 2), 3)


@pytest.mark.parametrize(
    "forged",
    [
        None,
        [1, 2],
        "counts",
        {**DRAFT, "trials": -1},
        {**DRAFT, "first": [1, True]},
        {**DRAFT, "lengths": "lots"},
        {**DRAFT, "first_outside": {"trial": 1, "draft": 0}},
        {**DRAFT, "first_outside": {"trial": 1, "draft": 0, "token": -1}},
        {k: v for k, v in DRAFT.items() if k != "draws"},
    ],
)
def test_counts_of_the_wrong_shape_are_refused(forged: Any) -> None:
    assert check_counts.read(tag(forged), DraftCounts) == Unreadable()


def test_an_invalid_record_wins_and_a_stray_invalid_is_a_record_it_cannot_read() -> None:
    record = {"trial": 2, "reason": "range", "token": 9}
    assert check_counts.read(tag({**DRAFT, "invalid": record}), DraftCounts) == InvalidTrial(record)
    assert check_counts.read(tag({"invalid": 5}), SamplerCounts) == InvalidTrial(None)
    # Sound counts beside a stray key are counts, as the merge always read them.
    assert check_counts.read(tag({**DRAFT, "invalid": 5}), DraftCounts) == DraftCounts(
        4, (1, 3), (2, 2), 6
    )


def _done(first_trial: int, value: Any) -> tuple[tuple[Chunk, ...], RunResult]:
    run = CaseRun(outcome=Outcome.returned, value=tag(value), duration_ms=1.0)
    return (Chunk(0, first_trial, 200, 3),), RunResult(cases=[run])


def test_the_sampler_chunks_add_up_and_an_invalid_call_is_numbered_within_the_input() -> None:
    item = sampler.SamplerInput("n", {"probs": [0.5, 0.5]}, 400, 3, (0.5, 0.5), 200)
    check = sampler.SamplerCheck("sample_token", "rng", 1, {"probs": "list"}, (item,))
    look = {"trials": 200, "counts": [90, 110], "draws": 200}
    rest = {"trials": 200, "counts": [110, 90], "draws": 201}
    (added,) = sampler_jobs.merged_result(check, [_done(0, look), _done(200, rest)]).cases
    assert added.value == SamplerCounts(400, (200, 200), 401) and added.duration_ms == 2.0
    invalid = {"invalid": {"trial": 7, "reason": "range", "token": 5, "odd": [1]}}
    (numbered,) = sampler_jobs.merged_result(check, [_done(0, look), _done(200, invalid)]).cases
    assert numbered.value == InvalidTrial({"trial": 207, "reason": "range", "token": 5})
    other = {"trials": 200, "counts": [100, 50, 50], "draws": 200}
    (odd,) = sampler_jobs.merged_result(check, [_done(0, look), _done(200, other)]).cases
    assert odd.value == Unreadable()
    (row,) = sampler.check_rows(check, RunResult(cases=[odd]), {}, exact_failed=False)
    assert row.message == "the sampler check's counts did not add up; it could not judge"
