"""[distribution] in exercise.toml: a bad declaration is refused with a sentence naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.grading.distribution import load_check

GOOD = {"name": "n", "p": [[0.5, 0.5], [1.0, 0.0]], "q": [[0.25, 0.75]], "trials": 40, "seed": 1}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "distribution.py").write_text("def drive(step, Generator, p, q, t, s):\n    pass\n")
    return tmp_path


def test_a_sound_declaration_loads(folder: Path) -> None:
    check = load_check({"pairs": [GOOD]}, folder)
    assert check is not None and check.tests == 1
    assert check.pairs[0].gamma == 1 and check.pairs[0].alpha == 0.75
    assert load_check(None, folder) is None
    (looking,) = load_check({"pairs": [{**GOOD, "first_look": 10}]}, folder).pairs  # type: ignore[union-attr]
    assert looking.first_look == 10 and check.pairs[0].first_look is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"p": [[0.5, 0.6], [1.0, 0.0]]}, "sums to"),
        ({"p": [[0.5, 0.5]]}, "one row more than q"),
        ({"q": [[0.5, 0.25, 0.25]]}, "one row more than q"),
        ({"p": [[-0.5, 1.5], [1.0, 0.0]]}, "probabilities in [0, 1]"),
        ({"trials": 0}, "trials must be"),
        ({"seed": "x"}, "seed must be"),
        ({"extra": 1}, "needs exactly"),
        ({"first_look": 40}, "first_look must be"),
        # p[0] = (0.5, 0.5): 39 trials expect 19.5 of each, pooled into one bin of 39
        ({"trials": 39}, "trials = 39 pools every token into one bin of the chi-square"),
        ({"first_look": 9}, "first_look = 9 pools every token into one bin"),
        ({"first_look": 0}, "first_look must be"),
        ({"first_look": 2.5}, "first_look must be"),
        ({"first_look": True}, "first_look must be"),
    ],
)
def test_a_bad_pair_is_named(folder: Path, change: dict, words: str) -> None:
    with pytest.raises(ValueError, match="distribution pair 1") as caught:
        load_check({"pairs": [{**GOOD, **change}]}, folder)
    assert words in str(caught.value)


def test_a_missing_or_broken_driver_is_named(folder: Path) -> None:
    (folder / "distribution.py").write_text("def drive(:\n")
    with pytest.raises(SyntaxError):
        load_check({"pairs": [GOOD]}, folder)
    (folder / "distribution.py").unlink()
    with pytest.raises(ValueError, match="missing"):
        load_check({"pairs": [GOOD]}, folder)
    with pytest.raises(ValueError, match="no pairs"):
        load_check({"pairs": []}, folder)


def test_the_hints_a_failing_row_offers_are_checked(folder: Path) -> None:
    check = load_check({"pairs": [GOOD], "hints": {"first_token": 2}}, folder, hint_count=3)
    assert check is not None and check.hints == {"first_token": 2}
    for hints in ({"first_token": 4}, {"first_token": 0}, {"mean": 1}, {"first_token": "2"}, []):
        with pytest.raises(ValueError, match="hints map first_token and tokens_per_step"):
            load_check({"pairs": [GOOD], "hints": hints}, folder, hint_count=3)
