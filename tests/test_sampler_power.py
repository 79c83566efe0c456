"""The sampler check's calls are enough, for every exercise that declares one: each golden
mistake wrong in distribution passes the whole check with probability below 1e-6 at the calls
and first looks the exercise declares, every golden correct sampler is right in distribution,
and a correct sampler's tokens at each declared seed settle at the input's look (so a correct
Submit runs only the looks).

Each golden function's token law is estimated through the real check (the judge's driver in a
confined child, a seed of its own); tools/sampler_power.py turns it into the miss rate and
prints the same numbers for exercise.toml.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.catalog import Catalog
from app.grading.judge import Judge
from tests import golden
from tools.sampler_power import correct_settles, estimate, input_power

ESTIMATE = 8_000
TARGET_MISS = 1e-6


def _samplers() -> list[str]:
    return [exercise.id for exercise in Catalog.load() if exercise.sampler is not None]


def _golden() -> list[Path]:
    return [path for exercise_id in _samplers() for path in golden.of(exercise_id, "*.py")]


@pytest.mark.parametrize("exercise_id", _samplers())
def test_a_correct_sampler_settles_at_every_look(
    catalog: Catalog, judge: Judge, exercise_id: str
) -> None:
    exercise = catalog.get(exercise_id)
    assert exercise is not None and exercise.sampler is not None
    for item in exercise.sampler.inputs:
        if item.first_look is not None:
            assert correct_settles(judge, exercise, item), (item.name, item.seed)


@pytest.mark.parametrize("path", _golden(), ids=golden.name)
def test_the_check_catches_each_mistake_wrong_in_distribution(
    catalog: Catalog, judge: Judge, path: Path
) -> None:
    exercise = catalog.get(golden.exercise_of(path))
    assert exercise is not None and exercise.sampler is not None
    check = exercise.sampler
    code = path.read_text(encoding="utf-8")
    rows = [
        input_power(check, item, estimate(judge, exercise, code, item, ESTIMATE))
        for item in check.inputs
    ]
    if path.name.startswith("correct_"):
        assert all(row.right_in_distribution for row in rows), rows
        return
    if all(row.right_in_distribution for row in rows):
        return  # right in distribution: the exact cases catch it (tests/test_solutions.py)
    missed = math.prod(row.miss for row in rows)
    assert missed < TARGET_MISS, (path.stem, missed, rows)
