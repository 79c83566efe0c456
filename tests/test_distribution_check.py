"""The distribution check through the real sandbox: right steps pass, wrong ones fail it.

The learner's step runs in a confined child with the exercise's trusted driver; the host
does the statistics. Seeds are fixed, so every verdict here is reproducible.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from app.catalog import Catalog, Exercise
from app.grading.judge import Judge
from app.schemas import CaseResult, Group, Mode, Status

EXERCISE = "speculative-decoding-resample"
# The lesson this exercise's [distribution.words] gives a step right in distribution only.
_CHECK = Catalog.load().get(EXERCISE).distribution  # type: ignore[union-attr]
assert _CHECK is not None
ORDER_LESSON = _CHECK.words["lesson"]
GOLDEN = Path(__file__).parent / "solutions" / EXERCISE
CORRECT = sorted(GOLDEN.glob("correct_*.py"))
WRONG_IN_DISTRIBUTION = [
    "wrong_residual_not_normalised",
    "wrong_resample_from_target",
    "wrong_residual_abs",
    "wrong_residual_not_clamped",
]


def check_rows(judge: Judge, exercise: Exercise, code: str) -> list[CaseResult]:
    """The distribution check's rows of a Submit of ``code`` (after the cases' rows)."""
    report = judge.grade(exercise, code, Mode.submit)
    return [test for test in report.tests if test.group == Group.check]


@pytest.fixture(scope="module")
def exercise(catalog: Catalog) -> Exercise:
    found = catalog.get(EXERCISE)
    assert found is not None and found.distribution is not None
    return found


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_every_correct_step_passes(path: Path, judge: Judge, exercise: Exercise) -> None:
    rows = check_rows(judge, exercise, path.read_text())
    assert len(rows) == len(exercise.distribution.pairs) >= 2
    for row in rows:
        assert row.status == Status.passed, row.message
        assert row.chart is not None and row.chart.passed
        assert row.chart.statistic <= row.chart.threshold
        assert "showed no departure from the target's proportions" in (row.message or "")
        assert ORDER_LESSON not in (row.message or "")


@pytest.mark.parametrize("name", WRONG_IN_DISTRIBUTION)
def test_each_step_wrong_in_distribution_fails(name: str, judge: Judge, exercise: Exercise) -> None:
    rows = check_rows(judge, exercise, (GOLDEN / f"{name}.py").read_text())
    failed = [row for row in rows if row.status == Status.failed]
    assert failed, [row.message for row in rows]
    for row in failed:
        assert row.chart is not None and not row.chart.passed
        message = row.message or ""
        # Its first tokens out of proportion, a replacement the residual never gives, or a
        # token the target never gives (the pair with supports apart: |p - q|).
        if row.chart.statistic > row.chart.threshold:
            assert "is not distributed as the target's row p[0]" in message
            assert "(the most over-sampled)" in message and "(the most under-sampled)" in message
        elif "gives it probability 0" in message:
            assert any(x == 0 for x in row.chart.target)
            assert "but the target's row p[0] gives it probability 0" in message
        else:
            assert "in its place, but a replacement is drawn from the residual" in message
    # The first pair (every row the same) is built so the residual's mistakes show there; an
    # unclamped residual (its sum is round-off) puts all its mass on one token, which the
    # second pair, whose draft always proposes token 1 (p = 0.1), shows at 9 per step.
    decisive = 1 if name == "wrong_residual_not_clamped" else 0
    assert rows[decisive].status == Status.failed
    # Each failing row offers the hint on the residual, the exercise's for a first token.
    assert exercise.distribution.hints["first_token"] == 2
    assert all(row.hint == 2 for row in failed)
    assert all(row.hint is None for row in rows if row.status == Status.passed)


@pytest.mark.parametrize("name", ["wrong_resample_from_target", "wrong_residual_abs"])
def test_a_replacement_outside_the_residual_is_named_with_its_trial(
    name: str, judge: Judge, exercise: Exercise
) -> None:
    rows = check_rows(judge, exercise, (GOLDEN / f"{name}.py").read_text())
    pair = exercise.distribution.pairs[0]
    row = rows[0]
    assert row.status == Status.failed
    message = row.message or ""
    found = re.search(
        r"on trial (\d+) the draft proposed token (\d) first and your step returned token (\d) "
        r"in its place, but a replacement is drawn from the residual max\(p\[0\] - q\[0\], 0\), "
        r"which gives token \3 probability 0 \(p = ([\d.]+) <= q = ([\d.]+)\); (\d+) of your "
        r"(\d+) steps began with such a replacement",
        message,
    )
    assert found, message
    trial, draft, token, p, q, outside, trials = found.groups()
    assert 1 <= int(trial) <= int(trials) and draft != token
    assert float(p) == pair.p[0][int(token)] <= pair.q[0][int(token)] == float(q)
    assert 0 < int(outside) <= int(trials) == row.chart.trials  # type: ignore[union-attr]
    # A certain failure at the first look: the rest of the trials did not run.
    assert int(trials) == pair.first_look
    assert "no departure" not in message  # its proportions are beside the point


def test_the_order_lesson_is_told_only_when_every_pair_passes(
    judge: Judge, exercise: Exercise
) -> None:
    # A replacement from p fails the first pair and passes the others (the second's draft sure
    # of one token hides it; with supports apart the residual is p): their rows must not say
    # the step is right in distribution.
    rows = check_rows(judge, exercise, (GOLDEN / "wrong_resample_from_target.py").read_text())
    assert [row.status for row in rows] == [Status.failed, Status.passed, Status.passed]
    assert all(ORDER_LESSON not in (row.message or "") for row in rows)


def test_the_chart_carries_the_numbers(judge: Judge, exercise: Exercise) -> None:
    code = (GOLDEN / "wrong_residual_not_normalised.py").read_text()
    row = check_rows(judge, exercise, code)[0]
    chart = row.chart
    assert chart is not None
    pair = exercise.distribution.pairs[0]
    assert chart.tokens == [0, 1, 2, 3]
    assert chart.target == list(pair.p[0])
    assert chart.trials == pair.trials
    assert sum(chart.observed) == pytest.approx(1.0)
    # Unnormalised, the residual's draws past its sum (1 - alpha = 0.5) fall to its last positive
    # token (2): the draft never proposes it, so it should come out p[0][2] = 0.1, it comes
    # out near 0.5 * (0.1 + 0.5) = 0.3 (at 260 trials, within 0.06 of it: two deviations).
    over = max(chart.tokens, key=lambda t: chart.observed[t] - chart.target[t])
    assert over == 2
    assert chart.observed[2] == pytest.approx(0.3, abs=0.06)
    assert f"token 2 came out {100 * chart.observed[2]:.1f}% of the time" in (row.message or "")


def test_draws_up_front_pass_the_check_and_fail_the_report(
    judge: Judge, exercise: Exercise
) -> None:
    code = (GOLDEN / "wrong_uniforms_up_front.py").read_text()
    report = judge.grade(exercise, code, Mode.submit)
    assert report.status == Status.failed
    rows = [test for test in report.tests if test.group == Group.check]
    assert len(rows) == len(exercise.distribution.pairs)
    for row in rows:
        assert row.status == Status.passed, row.message
        assert (row.message or "").endswith(ORDER_LESSON)


def test_a_wrong_mean_token_count_fails(judge: Judge, exercise: Exercise) -> None:
    # A bonus token after a rejection leaves the first token right but adds tokens.
    code = (GOLDEN / "wrong_bonus_after_rejection.py").read_text()
    row = check_rows(judge, exercise, code)[0]
    assert row.status == Status.failed
    assert "showed no departure from the target's proportions" in (row.message or "")
    assert "tokens on average; with every row the same a correct step yields" in (row.message or "")
    assert "= 1.875 (alpha = 0.5, gamma = 3)" in (row.message or "")
    assert row.hint == exercise.distribution.hints["tokens_per_step"] == 3  # where a step ends


def test_the_same_seed_gives_the_same_verdict(judge: Judge, exercise: Exercise) -> None:
    for name in ("correct_while_loop", "wrong_resample_from_target"):
        code = (GOLDEN / f"{name}.py").read_text()
        first = check_rows(judge, exercise, code)
        again = check_rows(judge, exercise, code)
        assert [r.chart for r in first] == [r.chart for r in again]
        assert [r.status for r in first] == [r.status for r in again]


def test_a_step_that_returns_garbage_is_told_so(judge: Judge, exercise: Exercise) -> None:
    code = "def speculative_step(p, q, draft, rng):\n    return [9]\n"
    rows = check_rows(judge, exercise, code)
    assert rows[0].status == Status.failed
    assert rows[0].message == (
        "on trial 1 of the distribution check your step returned token 9, outside the vocabulary"
    )
    code = "def speculative_step(p, q, draft, rng):\n    return []\n"
    assert check_rows(judge, exercise, code)[0].message == (
        "on trial 1 of the distribution check your step returned 0 tokens, but a step yields 1 to 4"
    )


def test_a_step_that_draws_nothing_fails_the_check_however_its_counts_look(
    judge: Judge, exercise: Exercise
) -> None:
    # A schedule that hands out tokens in p[0]'s proportions, and lengths in the geometric
    # law's, with no randomness at all: its counts fit too well.
    code = (
        "state = {}\n"
        "def pick(weights, counts, k):\n"
        "    best = max(range(len(weights)), key=lambda t: weights[t] * k - counts[t])\n"
        "    counts[best] += 1\n"
        "    return best\n"
        "def speculative_step(p, q, draft, rng):\n"
        "    gamma, row = len(draft), p[0].tolist()\n"
        "    s = state.setdefault(tuple(row), {'k': 0, 'first': [0] * len(row), "
        "'lengths': [0] * (gamma + 1)})\n"
        "    s['k'] += 1\n"
        "    alpha = sum(min(a, b) for a, b in zip(row, q[0].tolist())) if gamma else 0.0\n"
        "    masses = [alpha ** (j - 1) * (1 - alpha) for j in range(1, gamma + 1)]\n"
        "    masses.append(alpha ** gamma)\n"
        "    first = pick(row, s['first'], s['k'])\n"
        "    return [first] * (pick(masses, s['lengths'], s['k']) + 1)\n"
    )
    rows = check_rows(judge, exercise, code)
    assert [row.status for row in rows] == [Status.failed] * len(rows)
    assert rows[0].message == (
        "on trial 1 of the distribution check your step drew no number from the generator it "
        "was given, yet every step draws at least one (for its final sample): the check judges "
        "tokens that come from that generator"
    )


def test_prints_inside_the_check_are_dropped(judge: Judge, exercise: Exercise) -> None:
    rows = check_rows(judge, exercise, (GOLDEN / "correct_print_debug.py").read_text())
    assert [row.status for row in rows] == [Status.passed] * len(rows)


def test_exercises_without_a_check_have_no_rows(judge: Judge, catalog: Catalog) -> None:
    verify = catalog.get("speculative-decoding-verify")
    assert check_rows(judge, verify, verify.solution_code) == []


def test_submit_reports_the_check_after_the_cases(judge: Judge, exercise: Exercise) -> None:
    from app.schemas import Verdict

    code = (GOLDEN / "wrong_uniforms_up_front.py").read_text()
    report = judge.grade(exercise, code, Mode.submit, 11)
    checks = [t for t in report.tests if t.group == Group.check]
    assert exercise.distribution is not None
    assert [t.group for t in report.tests[-len(checks) :]] == [Group.check] * len(
        exercise.distribution.pairs
    )
    assert all(t.status == Status.passed and t.chart is not None for t in checks)
    assert all((t.message or "").endswith(ORDER_LESSON) for t in checks)
    assert report.verdict == Verdict.wrong_answer and report.total == len(report.tests)
    # A step wrong only in distribution... is caught by the cases too; the verdict counts
    # the check's rows either way.
    wrong = judge.grade(exercise, (GOLDEN / "wrong_residual_abs.py").read_text(), Mode.submit, 11)
    failed_checks = [t for t in wrong.tests if t.group == Group.check and t.status != "pass"]
    assert failed_checks and wrong.passed == sum(t.status == "pass" for t in wrong.tests)
    # Run never runs the check.
    run = judge.grade(exercise, code)
    assert all(t.group != Group.check for t in run.tests)


def test_a_correct_step_slower_than_the_reference_still_passes(
    judge: Judge, exercise: Exercise
) -> None:
    # Red team: fifteen harmless checks per call (a few times the reference's cost)
    # ran the check past the exercise's one-second budget; the check has its own budget now.
    slower = exercise.solution_code.replace(
        "    gamma = len(draft)\n",
        "    gamma = len(draft)\n"
        "    for _ in range(15):\n"
        "        assert abs(float(np.sum(p[0])) - 1.0) < 1e-6\n",
        1,
    )
    assert slower != exercise.solution_code
    rows = check_rows(judge, exercise, slower)
    assert [row.status for row in rows] == [Status.passed] * len(rows), [r.message for r in rows]


def test_the_first_stage_is_packed_into_jobs_with_a_budget_scaled_by_their_trials(
    exercise: Exercise,
) -> None:
    from app.grading.distribution_jobs import (
        CHUNK_TRIALS,
        STEP_ALLOWANCE_MS,
        check_jobs,
        first_stage,
    )

    check = exercise.distribution
    assert check is not None
    jobs = check_jobs(check, "", exercise.entry_point, "", exercise.limits)
    stage = first_stage(check)
    # Every pair's look (or all of a pair's trials without one), in the pairs' order, a case
    # per chunk, as few jobs as fit CHUNK_TRIALS steps each.
    assert [chunk for batch, _ in jobs for chunk in batch] == stage
    assert [chunk.pair for chunk in stage] == list(range(len(check.pairs)))
    for pair, chunk in zip(check.pairs, stage, strict=True):
        assert chunk.trials == (pair.first_look or pair.trials) and chunk.seed == pair.seed
    for batch, job in jobs:
        trials = sum(chunk.trials for chunk in batch)
        assert trials <= CHUNK_TRIALS or len(batch) == 1
        assert job.cases == tuple(
            {**check.pairs[c.pair].inputs(), "trials": c.trials, "seed": c.seed} for c in batch
        )
        assert job.driver == check.driver
        assert job.limits.time_ms >= trials * STEP_ALLOWANCE_MS
        assert job.limits.memory_mb == exercise.limits.memory_mb
    # A job that fits the exercise's budget keeps the exercise's limits exactly (the warm
    # spare children are forked with those); a longer one gets a budget of its own.
    assert all(job.limits == exercise.limits for _, job in jobs)
    large = dataclasses.replace(check.pairs[0], trials=5_000, first_look=None)
    ((_, many),) = check_jobs(
        dataclasses.replace(check, pairs=(large,)), "", "f", "", exercise.limits, most=5_000
    )
    assert many.limits.time_ms == 10_000 > exercise.limits.time_ms


def _recording(judge: Judge, handed: list) -> None:
    submit_all = judge.pool.submit_all

    def recording(jobs, background=False):  # type: ignore[no-untyped-def]
        handed.extend(jobs)
        return submit_all(jobs, background=background)

    judge.pool.submit_all = recording  # type: ignore[method-assign]


def test_the_pool_gets_the_looks_and_the_rows_keep_the_pairs_order(
    judge: Judge, exercise: Exercise
) -> None:
    from app.grading.distribution_jobs import check_jobs

    check = exercise.distribution
    assert check is not None
    handed: list = []
    _recording(judge, handed)
    try:
        report = judge.grade(exercise, exercise.solution_code, Mode.submit, 5)
    finally:
        del judge.pool.submit_all
    drivers = [job for job in handed if job.driver]
    looks = check_jobs(check, exercise.solution_code, exercise.entry_point, "", exercise.limits)
    # The reference settles every pair at its first look: no more of the check runs.
    assert [job.cases for job in drivers] == [job.cases for _, job in looks]
    rows = [test for test in report.tests if test.group == Group.check]
    assert [row.name for row in rows] == [f"distribution check: {p.name}" for p in check.pairs]
    # Each row's input is its pair's, with the trials that ran (the look's, when it settled).
    ran = [p.first_look or p.trials for p in check.pairs]
    assert [row.input for row in rows] == [
        {**pair.inputs(), "trials": trials} for pair, trials in zip(check.pairs, ran, strict=True)
    ]
    assert all(row.status == Status.passed and row.chart is not None for row in rows)
    assert [row.chart.trials for row in rows if row.chart] == ran


def test_a_look_that_does_not_settle_runs_the_rest_and_is_judged_on_all_trials(
    judge: Judge, exercise: Exercise
) -> None:
    from app.grading.distribution_jobs import chunks

    check = exercise.distribution
    assert check is not None
    index, pair = 0, check.pairs[0]
    assert pair.first_look, "the resample exercise's first pair declares a first look"
    handed: list = []
    _recording(judge, handed)
    try:
        # Wrong in distribution (yet never outside the residual, which would fail it for
        # certain at once): its look on pair 1 is far from clearly right, so the rest runs.
        # (Pair 2 barely tells this mistake apart: its look settles it, and pair 1 fails it.)
        code = (GOLDEN / "wrong_residual_not_normalised.py").read_text()
        rows = check_rows(judge, exercise, code)
    finally:
        del judge.pool.submit_all
    cases = [case for job in handed if job.driver for case in job.cases]
    mine = [(case["trials"], case["seed"]) for case in cases if case["p"] == pair.inputs()["p"]]
    assert mine == [(c.trials, c.seed) for c in chunks(pair, index)]
    chart = rows[index].chart
    assert chart is not None and chart.trials == pair.trials
    assert rows[index].status == Status.failed
    assert "first look" not in (rows[index].message or "")


def test_a_pair_cut_into_chunks_gets_the_verdict_of_its_counts_added(
    judge: Judge, exercise: Exercise
) -> None:
    # Through the real pool, a job per chunk of at most 100 trials, every pair's trials all
    # run (no first look): the counts added back per pair, one row per pair in order, the
    # same verdicts as whole pairs get.
    from app.grading.distribution_jobs import check_jobs, chunks, merged_result
    from app.grading.distribution_verdict import check_rows
    from app.grading.reports import limits_text

    check = exercise.distribution
    assert check is not None
    whole = dataclasses.replace(
        check, pairs=tuple(dataclasses.replace(p, first_look=None) for p in check.pairs)
    )
    stage = [c for index, pair in enumerate(whole.pairs) for c in chunks(pair, index, most=100)]

    def rows(code: str) -> list:
        jobs = check_jobs(
            whole, code, exercise.entry_point, exercise.helpers_code, exercise.limits, 100, stage
        )
        assert len(jobs) == sum(-(-pair.trials // 100) for pair in whole.pairs) > len(whole.pairs)
        futures = [(batch, judge.pool.submit(job)) for batch, job in jobs]
        done = [(batch, future.result(120)) for batch, future in futures]
        return check_rows(whole, merged_result(whole, done), limits_text(exercise), False)

    right = rows(exercise.solution_code)
    assert [row.status for row in right] == [Status.passed] * len(whole.pairs)
    assert [row.chart.trials for row in right if row.chart] == [p.trials for p in whole.pairs]
    wrong = rows((GOLDEN / "wrong_residual_not_normalised.py").read_text())
    assert wrong[0].status == Status.failed
    assert "is not distributed as the target's row p[0]" in (wrong[0].message or "")
