"""Submit and custom input over HTTP, through the real judge and pool (in process)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
from asgi_client import InProcessClient

from app.catalog import EXERCISES_DIR, Catalog
from app.grading.case_sets import AHEAD
from app.grading.judge import Judge
from app.schemas import Mode
from sandbox import CaseRun, Job, Outcome, RunResult, SandboxUnavailable
from tests.inputs import RESAMPLE_INPUT, VERIFY_INPUT, refused_detail
from tests.test_authoring import copy_of, set_toml, toml_text

VERIFY = "/api/exercises/speculative-decoding-verify"
RESAMPLE = "/api/exercises/speculative-decoding-resample"
GOLDEN = Path(__file__).parent.parent / "solutions"


class RecordingPool:
    """The real pool, with every job it receives written down."""

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self.jobs: list[Job] = []
        # Handed over as work ahead (the slow lane), with their futures.
        self.background: list[tuple[Job, Future[RunResult]]] = []

    def submit(self, job: Job) -> Future[RunResult]:
        return self.submit_all([job])[0]

    def submit_all(self, jobs: list[Job], background: bool = False) -> list[Future[RunResult]]:
        self.jobs.extend(jobs)
        futures = list(self._pool.submit_all(jobs, background))
        if background:
            self.background.extend(zip(jobs, futures, strict=True))
        return futures

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


@pytest.fixture
def recorded(judge: Judge) -> tuple[Judge, RecordingPool]:
    pool = RecordingPool(judge.pool)
    return Judge(pool), pool  # type: ignore[arg-type]


@pytest.fixture
def api(
    make_client: Callable[..., InProcessClient], recorded: tuple[Judge, RecordingPool]
) -> InProcessClient:
    return make_client(recorded[0], exercises_dir=EXERCISES_DIR)


def _code(catalog: Catalog, exercise_id: str) -> str:
    return catalog.get(exercise_id).solution_code  # type: ignore[union-attr]


def test_submit_grades_examples_extra_and_random_in_order_with_the_seed(
    api: InProcessClient, recorded: tuple[Judge, RecordingPool], catalog: Catalog
) -> None:
    code = "# mine\n" + _code(catalog, "speculative-decoding-resample")
    body = api.post(f"{RESAMPLE}/submissions", json={"code": code, "mode": "submit"}).json()
    exercise = catalog.get("speculative-decoding-resample")
    assert exercise is not None
    groups = [test["group"] for test in body["tests"]]
    extra = len(exercise.extra_cases)
    assert exercise.distribution is not None
    checked = len(exercise.distribution.pairs)
    assert groups == ["example"] * 6 + ["extra"] * extra + ["random"] * 20 + ["check"] * checked
    assert body["mode"] == "submit" and isinstance(body["seed"], int)
    total = 6 + extra + 20 + checked
    assert body["verdict"] == "accepted" and body["passed"] == body["total"] == total
    # The reference ran as a job of its own, on the random inputs only; the learner's job
    # never held the solution, nor did the distribution check's (the learner's code and the
    # trusted driver, a case per pair). All were jobs of the pool: nothing ran in this process.
    # The check's jobs first (the longest), then the learner's job and the reference's, which
    # is the first trusted job (the next Submit's reference may be started after the answer).
    handed = recorded[1].jobs
    *chunks, learner, reference = handed[: next(i for i, j in enumerate(handed) if j.trusted) + 1]
    assert learner.code == code and len(learner.cases) == 6 + extra + 20
    assert chunks and all(job.code == code and job.driver for job in chunks)
    cases = [case for job in chunks for case in job.cases]
    for pair in exercise.distribution.pairs:  # each pair's look, or all its trials
        mine = [case for case in cases if case["p"] == pair.inputs()["p"]]
        assert sum(case["trials"] for case in mine) == (pair.first_look or pair.trials)
    # Untraced: a trace explains a divergence, and a correct step diverges on none of them.
    assert reference.code == exercise.solution_code and not reference.trace
    assert not any(job.trusted and job.trace for job in handed)  # nor traced afterwards
    # Only the reference runs as trusted code (plain Python, no learner policy).
    assert reference.trusted and not learner.trusted
    assert not any(job.trusted for job in chunks)
    assert list(reference.cases) == [t["input"] for t in body["tests"] if t["group"] == "random"]
    # The same seed replays the same random cases, and fresh ones are drawn beside them.
    again = api.post(
        f"{RESAMPLE}/submissions", json={"code": code, "mode": "submit", "seed": body["seed"]}
    ).json()
    assert again["replayed_seed"] == body["seed"] and again["seed"] != body["seed"]
    replayed = [t for t in again["tests"] if t["name"].startswith(f"replay of seed {body['seed']}")]
    random = [t for t in body["tests"] if t["group"] == "random"]
    assert [t["input"] for t in replayed] == [t["input"] for t in random]
    fresh = [t for t in again["tests"] if t["group"] == "random" and t not in replayed]
    assert len(fresh) == 20 and [t["input"] for t in fresh] != [t["input"] for t in random]


def test_the_next_submits_reference_runs_ahead_as_a_job_of_its_own(
    api: InProcessClient, recorded: tuple[Judge, RecordingPool], catalog: Catalog
) -> None:
    code = "# ahead\n" + _code(catalog, "speculative-decoding-resample")
    first = api.post(f"{RESAMPLE}/submissions", json={"code": code, "mode": "submit"}).json()
    assert first["verdict"] == "accepted"
    jobs = recorded[1].jobs
    deadline = time.monotonic() + 10
    while len(recorded[1].background) < AHEAD and time.monotonic() < deadline:
        time.sleep(0.01)  # started on the server's loop once the first Submit was answered
    inline, ahead, *later = [job for job in jobs if job.trusted]
    # The next AHEAD Submits' sets, each with its reference in the background (on idle cores
    # only); the oldest goes first.
    background = recorded[1].background
    assert [job for job, _ in background] == [ahead, *later] and len(later) == AHEAD - 1
    assert list(inline.cases) == [t["input"] for t in first["tests"] if t["group"] == "random"]
    handed = len(jobs)
    background[0][1].result(timeout=30)  # a Submit uses it once it has answered
    second = api.post(f"{RESAMPLE}/submissions", json={"code": code, "mode": "submit"}).json()
    assert second["verdict"] == "accepted" and second["seed"] != first["seed"]
    random = [t for t in second["tests"] if t["group"] == "random"]
    # Its random cases are those the reference ran on ahead, in a child of its own, as trusted
    # code (untraced); none of its own jobs before the learner's was a reference's.
    assert [t["input"] for t in random] == list(ahead.cases) and len(random) == 20
    assert ahead.code == _code(catalog, "speculative-decoding-resample") and not ahead.trace
    ahead_jobs = [job for job, _ in recorded[1].background]  # the next sets', started after
    own = [job for job in jobs[handed:] if not any(job is other for other in ahead_jobs)]
    learner_at = next(i for i, job in enumerate(own) if not job.driver)
    assert own[learner_at].code == code and not any(job.trusted for job in own[:learner_at])
    assert all(t["status"] == "pass" and t["expected"] is not None for t in random)


def test_random_cases_a_learner_fails_are_traced_by_a_job_of_their_own(
    recorded: tuple[Judge, RecordingPool], catalog: Catalog
) -> None:
    # The reference runs a Submit's random cases untraced; those the learner gets wrong are
    # traced afterwards, in a trusted job on those inputs only, and explained as ever.
    judge, pool = recorded
    exercise = catalog.get("speculative-decoding-resample")
    assert exercise is not None
    golden = GOLDEN / "speculative-decoding-resample" / "wrong_resample_from_target.py"
    report = judge.grade(exercise, golden.read_text(), Mode.submit)
    failed = [t for t in report.tests if t.group == "random" and t.status == "fail"]
    assert failed, "a replacement drawn from p fails some of the twenty random cases"
    traced = [job for job in pool.jobs if job.trusted and job.trace]
    assert len(traced) == 1 and list(traced[0].cases) == [t.input for t in failed]
    untraced = [job for job in pool.jobs if job.trusted and not job.trace]
    assert all(len(job.cases) == exercise.random_cases for job in untraced)
    explained = [t for t in failed if "What the reference did at position" in (t.message or "")]
    assert explained, [t.message for t in failed]


@pytest.mark.parametrize("state", ["still running", "timed out", "failed"])
def test_a_reference_started_ahead_stands_only_if_it_answered(
    recorded: tuple[Judge, RecordingPool], catalog: Catalog, state: str
) -> None:
    # In the background it may still wait for an idle core, or have been stopped by its
    # backstop on a busy machine: the Submit then runs the reference itself, beside its jobs.
    judge, pool = recorded
    exercise = catalog.get("speculative-decoding-resample")
    assert exercise is not None
    stale: Future[RunResult] = Future()
    if state == "timed out":
        stale.set_result(RunResult(cases=[CaseRun(outcome=Outcome.timeout)] * 20))
    elif state == "failed":
        stale.set_exception(SandboxUnavailable("the sandbox stopped while grading"))
    judge.fresh_cases.restock(exercise, lambda inputs: stale)
    report = judge.grade(exercise, "# mine\n" + exercise.solution_code, Mode.submit)
    assert report.verdict == "accepted" and report.passed == report.total
    references = [job for job in pool.jobs if job.trusted]
    random = [test.input for test in report.tests if test.group == "random"]
    assert len(random) == 20 and list(references[0].cases) == random


def test_run_is_the_default_and_grades_the_examples_only(
    api: InProcessClient, recorded: tuple[Judge, RecordingPool], catalog: Catalog
) -> None:
    body = api.post(
        f"{VERIFY}/submissions", json={"code": _code(catalog, "speculative-decoding-verify")}
    ).json()
    assert (body["mode"], body["seed"], body["total"]) == ("run", None, 6)
    assert {t["group"] for t in body["tests"]} == {"example"}
    assert len(recorded[1].jobs) == 1  # no reference job for the stored examples


def test_the_exercise_never_carries_extra_cases(api: InProcessClient, catalog: Catalog) -> None:
    for exercise in catalog:
        body = api.get(f"/api/exercises/{exercise.id}").json()
        assert body["submit_cases"] == len(exercise.extra_cases) + exercise.random_cases
        text = api.get(f"/api/exercises/{exercise.id}").text
        for case in exercise.extra_cases:
            assert case.name not in text


def test_custom_input_gives_the_reference_value_and_draws(
    api: InProcessClient, recorded: tuple[Judge, RecordingPool], catalog: Catalog
) -> None:
    wrong = "def speculative_step(p, q, draft, rng):\n    rng.random()\n    return [0]\n"
    body = api.post(f"{RESAMPLE}/runs", json={"code": wrong, "input": RESAMPLE_INPUT}).json()
    assert body["mode"] == "custom" and body["verdict"] == "wrong_answer"
    (test,) = body["tests"]
    assert (test["group"], test["expected"], test["actual"]) == ("custom", [2], [0])
    assert "the reference draws 2" in test["message"]
    learner, reference = recorded[1].jobs
    assert learner.code == wrong and reference.code == _code(catalog, RESAMPLE.rsplit("/")[-1])
    good = api.post(
        f"{VERIFY}/runs",
        json={"code": _code(catalog, "speculative-decoding-verify"), "input": VERIFY_INPUT},
    ).json()
    assert good["verdict"] == "accepted" and good["tests"][0]["expected"] == [[3, 4], 2]


def test_an_input_the_reference_cannot_handle_is_reported_not_a_500(
    api: InProcessClient, catalog: Catalog
) -> None:
    code = _code(catalog, "speculative-decoding-resample")
    # a scripted generator shorter than the reference needs: the input's fault, named
    short = {**RESAMPLE_INPUT, "rng": {"scripted": [0.5]}}
    refused = api.post(f"{RESAMPLE}/runs", json={"code": code, "input": short})
    assert refused.status_code == 422
    assert refused.json()["detail"] == (
        "input.rng: the reference needs more scripted numbers than this input holds"
    )


# Each input the reference cannot run, and what the resample exercise's [custom] shapes and
# indices say of it before anything runs.
UNRUNNABLE = [
    # one row of p where a draft of two needs three (the first draft token accepted)
    (
        {"p": [[0.2, 0.5, 0.3]], "rng": {"scripted": [0.1, 0.1, 0.1]}},
        "input.q: 2 rows, but input.p's 1 row is gamma + 1, so q needs gamma = 0",
    ),
    (
        {"draft": [7, 9]},  # tokens past the vocabulary
        "input.draft[0]: expected an index of V, from 0 to 2 (input.p's 3 columns are V), got 7",
    ),
]


@pytest.mark.parametrize(("change", "declared"), UNRUNNABLE)
def test_an_input_the_reference_cannot_run_is_a_422_not_the_learners_runtime_error(
    make_client: Callable[..., InProcessClient],
    judge: Judge,
    tmp_path: Path,
    change: dict[str, Any],
    declared: str,
) -> None:
    # Declared, the sizes one parameter takes from another are checked before anything runs.
    given = {**RESAMPLE_INPUT, **change}
    assert refused_detail(make_client(judge, exercises_dir=EXERCISES_DIR), RESAMPLE, given) == (
        declared
    )
    # Undeclared (a copy of the folder without them), the reference shows it by failing, and
    # the learner's code is not blamed for an input it was never meant to take.
    source = EXERCISES_DIR / "speculative-decoding-resample"
    copy = copy_of(source, tmp_path)
    for key in ("shapes", "indices", "support"):
        set_toml(copy, re.sub(rf"^{key}\s*=.*\n", "", toml_text(copy), flags=re.M))
    api = make_client(judge, exercises_dir=tmp_path)
    code = (source / "solution.py").read_text()
    response = api.post(f"{RESAMPLE}/runs", json={"code": code, "input": given})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("input: outside what this exercise accepts"), detail
    assert "the reference raised IndexError" in detail


BAD_INPUTS = [
    (VERIFY, {k: v for k, v in VERIFY_INPUT.items() if k != "draft_tokens"}, "input.draft_tokens"),
    (VERIFY, {**VERIFY_INPUT, "temperature": 1.0}, "input.temperature"),
    (VERIFY, {**VERIFY_INPUT, "draft_probs": "0.5"}, "input.draft_probs"),
    (VERIFY, {**VERIFY_INPUT, "draft_tokens": [3, 4.5]}, "input.draft_tokens[1]"),
    (VERIFY, {**VERIFY_INPUT, "draft_probs": [0.5, True]}, "input.draft_probs[1]"),
    (VERIFY, {**VERIFY_INPUT, "draft_probs": [0.5] * 1001}, "input.draft_probs"),
    (RESAMPLE, {**RESAMPLE_INPUT, "p": [[0.5, 0.5], [1.0]]}, "input.p"),
    (RESAMPLE, {**RESAMPLE_INPUT, "q": [[0.5, "x", 0.5]]}, "input.q[0][1]"),
    (RESAMPLE, {**RESAMPLE_INPUT, "rng": {"seed": -1}}, "input.rng.seed"),
    (RESAMPLE, {**RESAMPLE_INPUT, "rng": {"scripted": [0.5, 1.5]}}, "input.rng.scripted[1]"),
    (RESAMPLE, {**RESAMPLE_INPUT, "rng": 7}, "input.rng"),
    (RESAMPLE, {**RESAMPLE_INPUT, "p": [[0.0] * 1001]}, "input.p[0]"),
    (RESAMPLE, {**RESAMPLE_INPUT, "q": {"empty": [3, 3]}}, "input.q"),
]


@pytest.mark.parametrize(("url", "given", "named"), BAD_INPUTS)
def test_every_bad_input_is_a_422_naming_the_parameter(
    api: InProcessClient,
    recorded: tuple[Judge, RecordingPool],
    url: str,
    given: dict[str, Any],
    named: str,
) -> None:
    detail = refused_detail(api, url, given)
    assert detail.startswith(named + ":"), detail
    assert recorded[1].jobs == []  # refused before anything ran


def test_a_non_finite_number_is_a_422(api: InProcessClient) -> None:
    raw = (
        '{"code": "x = 1", "input": {"draft_probs": [NaN], "target_probs": [0.5], '
        '"draft_tokens": [1], "target_dist_next": null}}'
    )
    response = api.post(f"{VERIFY}/runs", content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert "draft_probs" in response.json()["detail"]


def test_a_bad_mode_is_a_422(api: InProcessClient) -> None:
    response = api.post(f"{VERIFY}/submissions", json={"code": "x = 1", "mode": "custom"})
    assert response.status_code == 422 and "mode" in response.json()["detail"]


def test_a_table_of_one_reports_answers_fails_submit_even_replaying_its_seed(
    api: InProcessClient,
) -> None:
    # Red team: learn every input and expected value from one Submit report, then
    # send a lookup table with the same seed. The replayed cases pass; the fresh ones do not.
    starter = api.get(VERIFY).json()["starter_code"]
    first = api.post(f"{VERIFY}/submissions", json={"code": starter, "mode": "submit"}).json()
    table = {
        repr([t["input"]["draft_probs"], t["input"]["target_probs"], t["input"]["draft_tokens"]]):
        t["expected"]
        for t in first["tests"]
    }  # fmt: skip
    code = (
        f"T = {table!r}\n"
        "def speculative_decode(d, t, k, n=None):\n"
        "    e = T[repr([list(d), list(t), list(k)])]\n"
        "    return list(e[0]), e[1]\n"
    )
    replay = {"code": code, "mode": "submit", "seed": first["seed"]}
    body = api.post(f"{VERIFY}/submissions", json=replay).json()
    assert body["replayed_seed"] == first["seed"]
    assert body["verdict"] != "accepted"
    replayed = [t for t in body["tests"] if t["name"].startswith("replay of seed")]
    assert replayed and all(t["status"] == "pass" for t in replayed)
    fresh = [t for t in body["tests"] if t["group"] == "random" and t not in replayed]
    assert any(t["status"] != "pass" for t in fresh)


def test_a_submit_the_pool_cannot_take_is_a_503_that_leaves_none_of_its_jobs_running(
    make_client: Callable[..., InProcessClient], catalog: Catalog
) -> None:
    # One fast slot and one place in the queue, the slot held by a spinner: a Submit's jobs
    # (learner, reference, check) are admitted all or none, so the 503 leaves nothing behind.
    spin = "def speculative_step(p, q, draft, rng):\n    while True:\n        pass\n"
    small = Judge.create(workers=1, queue_size=1, slow_lane=0)
    try:
        api = make_client(small, exercises_dir=EXERCISES_DIR)
        path = "/api/exercises/speculative-decoding-resample/submissions"
        exercise = catalog.get("speculative-decoding-resample")
        assert exercise is not None
        spinner = small.submit(exercise, spin)
        response = api.post(path, json={"code": _code(catalog, exercise.id), "mode": "submit"})
        assert response.status_code == 503 and response.headers["Retry-After"]
        lanes = small.pool.lanes()
        assert (lanes["fast"]["in_use"], lanes["queue"]["in_use"]) == (1, 0)
        spinner.result(timeout=30)
        # Idle again, the pool takes the whole Submit although it is larger than its bound.
        response = api.post(path, json={"code": _code(catalog, exercise.id), "mode": "submit"})
        assert response.status_code == 200 and response.json()["verdict"] == "accepted"
    finally:
        small.close()
