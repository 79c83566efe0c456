"""The sampler check: its declaration, its statistics and its rows, and a real run through the
sandbox of a small exercise built here (the judge's own driver, chunks, the two stages)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.catalog import ExerciseError, load_exercise
from app.grading import sampler, sampler_jobs
from app.grading.check_counts import SamplerCounts
from app.grading.judge import Judge
from app.schemas import CaseResult, Group, Mode, Status

PARAMETERS = {"probs": "list", "rng": "rng"}
GOOD = {"name": "four", "input": {"probs": [0.5, 0.3, 0.15, 0.05]}, "trials": 100, "seed": 1}


def load(raw: Any, folder: Path, returns: str = "int") -> sampler.SamplerCheck | None:
    return sampler.load_sampler(
        raw,
        folder,
        entry_point="sample_token",
        parameters=PARAMETERS,
        returns=returns,
        random_argument="rng",
        hint_count=3,
    )


def test_a_declaration_loads_with_its_law_given_or_computed(tmp_path: Path) -> None:
    given = load({"inputs": [{**GOOD, "law": [0.5, 0.3, 0.15, 0.05]}]}, tmp_path)
    assert given is not None and given.inputs[0].law == (0.5, 0.3, 0.15, 0.05)
    assert given.rng == "rng" and given.rng_at == 1 and given.parameters == {"probs": "list"}
    # One possible token: no chi-square to have power, the token returned is the whole test.
    sure = load({"inputs": [{**GOOD, "trials": 2, "law": [0.0, 1.0, 0.0, 0.0]}]}, tmp_path)
    assert sure is not None and sure.inputs[0].trials == 2
    (tmp_path / "law.py").write_text("def law(probs):\n    return [p for p in probs]\n")
    computed = load({"inputs": [GOOD], "hints": {"token": 2}}, tmp_path)
    assert computed is not None and computed.inputs[0].law == (0.5, 0.3, 0.15, 0.05)
    assert computed.hints == {"token": 2} and computed.inputs[0].must_draw
    assert load(None, tmp_path) is None


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ({"inputs": [GOOD], "hint": {"token": 1}}, "unknown key 'hint'"),
        ({"inputs": []}, "declares no"),
        ({"inputs": [{**GOOD, "law": [0.5, 0.6]}]}, "sums to"),
        ({"inputs": [{**GOOD, "law": [0.5, float("nan"), 0.5]}]}, "in [0, 1]"),
        ({"inputs": [{**GOOD, "input": {"p": [1.0]}}]}, "exactly the parameters ['probs']"),
        ({"inputs": [{**GOOD, "trials": 0}]}, "trials must be"),
        ({"inputs": [{**GOOD, "first_look": 100}]}, "first_look must be"),
        # (0.5, 0.3, 0.15, 0.05): 39 calls expect 19.5 of token 0, every token one bin
        ({"inputs": [{**GOOD, "trials": 39, "law": GOOD["input"]["probs"]}]}, "trials = 39 pools"),
        ({"inputs": [{**GOOD, "first_look": 9, "law": GOOD["input"]["probs"]}]}, "first_look = 9"),
        ({"inputs": [{**GOOD, "seeds": 1}]}, "unknown key 'seeds'"),
        ({"inputs": [GOOD]}, "needs a law, or a law.py"),
        ({"inputs": [GOOD, GOOD], "lesson": "x"}, "needs a law"),
        ({"inputs": [{**GOOD, "law": [1.0]}] * 2}, "names must be unique"),
        ({"inputs": [{**GOOD, "law": [1.0]}], "hints": {"token": 4}}, "hint number from 1 to 3"),
    ],
)
def test_a_bad_declaration_is_refused_with_its_reason(
    tmp_path: Path, raw: dict[str, Any], words: str
) -> None:
    with pytest.raises(ValueError, match=None) as caught:
        load(raw, tmp_path)
    assert words in str(caught.value), caught.value


def test_it_needs_a_function_that_returns_one_token(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='returns = "int"'):
        load({"inputs": [{**GOOD, "law": [1.0]}]}, tmp_path, returns="list[int]")


def test_a_law_py_that_raises_names_its_file(tmp_path: Path) -> None:
    (tmp_path / "law.py").write_text("def law(probs):\n    return 1 / 0\n")
    with pytest.raises(ValueError, match="law.py: law raised ZeroDivisionError"):
        load({"inputs": [GOOD]}, tmp_path)


def check_of(law: list[float], trials: int = 2000, look: int | None = None) -> Any:
    item = sampler.SamplerInput("n", {"probs": law}, trials, 3, tuple(law), look)
    return sampler.SamplerCheck("sample_token", "rng", 1, {"probs": "list"}, (item,)), item


def _counts(trials: int, tokens: list[int]) -> SamplerCounts:
    """What the check's merge makes of the driver's counts (``check_counts.read``)."""
    return SamplerCounts(trials, tuple(tokens), draws=trials)


def test_counts_drawn_from_the_law_pass_and_a_skew_fails() -> None:
    check, item = check_of([0.5, 0.3, 0.15, 0.05])
    rng = np.random.default_rng(0)
    good = np.bincount(rng.choice(4, size=2000, p=item.law), minlength=4).tolist()
    passed, words, chart = sampler.judge_input(check, item, _counts(2000, good), 1)
    assert passed and chart.passed
    assert "no departure from the exact law's proportions that 2000 calls can detect" in words
    assert chart.target == list(item.law) and math.isclose(sum(chart.observed), 1.0)
    skewed = [800, 800, 300, 100]
    passed, words, chart = sampler.judge_input(check, item, _counts(2000, skewed), 1)
    assert not passed and not chart.passed
    assert "sample_token(probs = [0.5, 0.3, 0.15, 0.05], rng)" in words
    assert "token 1 came out 40.0% of the time against 30.0%" in words


def test_one_token_the_law_excludes_fails_for_certain() -> None:
    check, item = check_of([0.5, 0.0, 0.5], trials=1000)
    passed, words, _ = sampler.judge_input(check, item, _counts(1000, [500, 1, 499]), 1)
    assert not passed and "returned token 1 1 times" in words and "probability 0" in words


def test_a_first_look_goes_on_only_when_it_is_not_clearly_right() -> None:
    _, item = check_of([0.5, 0.5], trials=1000, look=200)
    assert not sampler.goes_on(item, _counts(200, [100, 100]))
    assert sampler.goes_on(item, _counts(200, [125, 75]))
    assert not sampler.goes_on(item, _counts(200, [200, 0, 0]))  # unreadable
    _, zero = check_of([0.5, 0.0, 0.5], trials=1000, look=200)
    assert not sampler.goes_on(zero, _counts(200, [99, 1, 100]))  # failed already


def test_chunks_add_up_and_an_invalid_call_is_numbered_within_the_input() -> None:
    check, _ = check_of([0.5, 0.5], trials=1200, look=200)
    stage = sampler_jobs.first_stage(check)
    assert [(c.trials, c.seed) for c in stage] == [(200, 3)]
    jobs = sampler_jobs.check_jobs_for(check, "x", "", load_limits())
    ((batch, job),) = jobs
    assert job.driver == sampler_jobs.DRIVER and job.cases[0]["sampler:trials"] == 200
    assert list(job.parameters)[:1] == ["probs"] and job.cases[0]["sampler:rng_at"] == 1


def load_limits() -> Any:
    from sandbox import Limits

    return Limits()


SAMPLE = """def sample_token(probs, rng):
    u = rng.random()
    running = 0.0
    last = 0
    for i, p in enumerate(probs):
        running += p
        if p > 0:
            last = i
        if u < running:
            return i
    return last
"""
UNIFORM = "def sample_token(probs, rng):\n    return int(rng.random() * len(probs))\n"
FLOAT = "def sample_token(probs, rng):\n    rng.random()\n    return 0.0\n"
NO_DRAW = "def sample_token(probs, rng):\n    return 0\n"
FRESH_DRAWS = """def sample_token(probs, rng):
    left = 1.0
    for i, p in enumerate(probs):
        if left > 0 and rng.random() < p / left:
            return i
        left -= p
    return len(probs) - 1
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small sampling exercise, written as data: the check runs on its declared inputs."""
    root = tmp_path_factory.mktemp("exercises") / "sample-a-token"
    root.mkdir()
    (root / "exercise.toml").write_text(
        'title = "Sample"\nsection = "S"\ndifficulty = "easy"\nsummary = "s"\n'
        'entry_point = "sample_token"\nreturns = "int"\nhints = ["a", "b", "c"]\n'
        '[parameters]\nprobs = "list"\nrng = "rng"\n[random]\nmode = "generator"\n'
        'argument = "rng"\n[sampler]\nhints = { token = 2, outside = 3, no_draw = 1 }\n'
        'lesson = "Draw once, walk up"\n'
        '[[sampler.inputs]]\nname = "four tokens"\ninput = { probs = [0.5, 0.3, 0.15, 0.05] }\n'
        "trials = 1200\nfirst_look = 400\nseed = 11\n"
        '[[sampler.inputs]]\nname = "a zero"\ninput = { probs = [0.25, 0.0, 0.75] }\n'
        "trials = 600\nseed = 12\n"
    )
    (root / "law.py").write_text("def law(probs):\n    return list(probs)\n")
    (root / "statement.md").write_text("## Task\n\nReturn the first $i$ with $u < c_i$.\n")
    (root / "starter.py").write_text(NO_DRAW)
    (root / "solution.py").write_text(SAMPLE)
    cases = [
        {
            "name": f"u = {u}",
            "input": {"probs": [0.5, 0.5], "rng": {"scripted": [u]}},
            "expected": {},
        }
        for u in (0.1, 0.5, 0.7, 0.2, 0.9, 0.49)
    ]
    for case in cases:
        u = case["input"]["rng"]["scripted"][0]  # type: ignore[index]
        case["expected"] = {"value": int(u >= 0.5), "draws": 1, "drawn": [u]}
    (root / "cases.json").write_text(json.dumps(cases))
    return root


def test_a_correct_sampler_passes_and_settles_at_its_look(folder: Path, judge: Judge) -> None:
    exercise = load_exercise(folder)
    report = judge.grade(exercise, SAMPLE, Mode.submit)
    rows = [t for t in report.tests if t.name.startswith("sampler check")]
    assert report.verdict.value == "accepted", [(t.name, t.message) for t in rows]
    assert [r.name for r in rows] == ["sampler check: four tokens", "sampler check: a zero"]
    assert all(r.chart is not None and r.chart.passed for r in rows)
    # Settled at its first look of 400 calls (of 1,200 declared): the row shows the calls made.
    assert rows[0].input == {"probs": [0.5, 0.3, 0.15, 0.05], "trials": 400, "seed": 11}
    assert rows[0].chart is not None and rows[0].chart.trials == 400
    assert rows[0].expected == [0.5, 0.3, 0.15, 0.05]


def check_rows(judge: Judge, folder: Path, code: str) -> list[CaseResult]:
    """The sampler check's rows of a Submit of ``code`` (after the cases' rows)."""
    report = judge.grade(load_exercise(folder), code, Mode.submit)
    return [test for test in report.tests if test.group == Group.check]


def test_wrong_samplers_fail_with_words_of_their_own(folder: Path, judge: Judge) -> None:
    uniform = check_rows(judge, folder, UNIFORM)
    assert [r.status for r in uniform] == [Status.failed, Status.failed]
    assert "not distributed as the exact law" in (uniform[0].message or "")
    # Each row offers the hint for how it failed, token's where none is declared.
    assert uniform[0].hint == 2  # the proportions
    assert "returned token 1" in (uniform[1].message or "") and uniform[1].hint == 3  # outside
    (floats, _) = check_rows(judge, folder, FLOAT)
    assert floats.hint == 2  # not_int: not declared, so token's
    assert "on call 1 of sample_token(probs = [0.5, 0.3, 0.15, 0.05], rng)" in (
        floats.message or ""
    )
    assert "returned a float, not an int token" in (floats.message or "")
    (nothing, _) = check_rows(judge, folder, NO_DRAW)
    assert "drew no number" in (nothing.message or "") and nothing.hint == 1


def test_right_in_distribution_wrong_draw_by_draw_gets_the_exercises_lesson(
    folder: Path, judge: Judge
) -> None:
    rows = check_rows(judge, folder, FRESH_DRAWS)
    assert all(r.status == Status.passed for r in rows)
    assert all((r.message or "").endswith("Draw once, walk up") for r in rows)


def test_a_broken_declaration_stops_the_folder_naming_its_file(
    tmp_path: Path, folder: Path
) -> None:
    copy = tmp_path / folder.name
    copy.mkdir()
    for path in folder.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    (copy / "law.py").write_text("def law(probs):\n    return [0.5]\n")
    with pytest.raises(ExerciseError, match="exercise.toml: .sampler. input 1 .four tokens."):
        load_exercise(copy)


def test_check_refuses_a_law_that_the_reference_does_not_follow(
    tmp_path: Path, folder: Path, judge: Judge
) -> None:
    from app.grading import exercise_tools

    copy = tmp_path / folder.name
    shutil.copytree(folder, copy)
    (copy / "law.py").write_text("def law(probs):\n    return [1 / len(probs)] * len(probs)\n")
    problems = exercise_tools.check_exercise(judge, load_exercise(copy))
    assert any(
        "the reference fails its Submit (wrong_answer): 'sampler check: four tokens'" in p
        for p in problems
    ), problems
