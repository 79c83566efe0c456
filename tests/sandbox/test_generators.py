"""The generators handed to learner code count exactly the numbers they hand out."""

from __future__ import annotations

from typing import Any

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


class Sneaky:
    """Learner-made numbers: numpy would call these methods from C."""

    called = False

    def __float__(self) -> float:
        Sneaky.called = True
        return 0.5

    def __index__(self) -> int:
        Sneaky.called = True
        return 2


@pytest.mark.parametrize("make", [lambda: CountingGenerator(7), lambda: ScriptedGenerator([0.5])])
@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda rng: rng.uniform(np.array([1, 2], dtype=object), 3.0), "low"),
        (lambda rng: rng.uniform(0.0, Sneaky()), "high"),
        (lambda rng: rng.uniform(0.0, [1.0, Sneaky()]), "high"),
        (lambda rng: rng.random(size=Sneaky()), "size"),
        (lambda rng: rng.uniform(size=(2, Sneaky())), "size"),
    ],
)
def test_bounds_and_sizes_are_plain_before_numpy_sees_them(
    make: Any, call: Any, named: str
) -> None:
    rng = make()
    Sneaky.called = False
    with pytest.raises(TypeError, match=f"^{named} must be"):
        call(rng)
    assert not Sneaky.called and rng.draws == 0


def test_plain_bounds_and_sizes_still_work() -> None:
    rng = CountingGenerator(3)
    assert rng.uniform(np.float64(1.0), 2, size=np.int64(3)).shape == (3,)
    assert rng.uniform(np.array([0.0, 10.0]), np.array([1.0, 11.0])).shape == (2,)
    assert rng.random((2, np.int32(2))).shape == (2, 2)
    assert rng.uniform(0.0, [1.0, 2]).shape == (2,)
    assert rng.draws == 3 + 2 + 4 + 2


@pytest.mark.parametrize("asked", [{"dtype": np.float32}, {"dtype": "float16"}, {"out": [0.0]}])
def test_a_scripted_generator_refuses_what_it_cannot_answer_as_numpy_would(asked: Any) -> None:
    """numpy's float32 draw is another number than the scripted float64 one, and ``out`` would
    be left unwritten: a sampler built on either would be graded on a draw it never saw."""
    scripted = ScriptedGenerator([0.5])
    with pytest.raises(TypeError, match="scripted generator"):
        scripted.random(**asked)
    assert scripted.draws == 0
    assert scripted.random(dtype=np.float64) == 0.5 and scripted.draws == 1
