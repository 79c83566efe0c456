"""The generators handed to learner code count exactly the numbers they hand out."""

from __future__ import annotations

import numpy as np
import pytest

from sandbox.values import CountingGenerator, RandomStreamExhausted, ScriptedGenerator

REFUSED_SIZES = [-1, (-1, -5), (2, -3)]


def test_a_seeded_generator_counts_what_it_returned() -> None:
    rng = CountingGenerator(7)
    for size in REFUSED_SIZES:  # numpy refuses these sizes: nothing drawn, nothing counted
        with pytest.raises(ValueError):
            rng.random(size=size)
        with pytest.raises(ValueError):
            rng.uniform(size=size)
    assert rng.draws == 0
    rng.random(size=(2, 3))
    rng.uniform(0.0, 1.0, 4)
    rng.random()
    rng.random(size=0)
    assert rng.draws == 11
    # The count matches the stream: the next number is the reference stream's twelfth.
    assert rng.random() == np.random.default_rng(7).random(12)[-1]


def test_a_scripted_generator_refuses_negative_sizes_before_drawing() -> None:
    rng = ScriptedGenerator([0.1, 0.2, 0.3])
    for size in REFUSED_SIZES:
        with pytest.raises(ValueError, match="negative dimensions"):
            rng.random(size=size)
    assert rng.draws == 0
    assert rng.random(size=(1, 2)).tolist() == [[0.1, 0.2]]
    assert rng.uniform(1.0, 3.0) == pytest.approx(1.6)
    with pytest.raises(RandomStreamExhausted):
        rng.random()
    assert rng.draws == 4
