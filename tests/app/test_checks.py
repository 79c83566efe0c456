"""The trusted comparisons and their learner-facing sentences."""

from __future__ import annotations

import sys

import pytest

from app import checks
from app.checks import Feedback, parse_type


def tag_int(v):
    return {"t": "int", "v": v}


def test_return_grammar() -> None:
    spec = parse_type("tuple[list[int], int]")
    assert str(spec) == "tuple[list[int], int]"
    assert spec.items[0].items[0].name == "int"
    for bad in ("dict[int]", "list[int, int]", "tuple[int", "int]", "", "list"):
        with pytest.raises(ValueError):
            parse_type(bad)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"t": "ndarray", "dtype": "int64", "shape": [1], "v": [1]},
            "must be a list, got numpy.ndarray",
        ),
        ({"t": "tuple", "v": [tag_int(1)]}, "must be a list, got tuple"),
        (
            {"t": "list", "v": [{"t": "float", "v": 3.0}]},
            "item 0 of accepted_tokens must be an int, got float (3.0)",
        ),
        ({"t": "list", "v": [{"t": "bool", "v": True}]}, "must be an int, got bool (True)"),
        ({"t": "object", "type": "MyList", "repr": "[]"}, "must be a list, got MyList"),
    ],
)
def test_type_problems_say_exactly_what_is_wrong(value, message) -> None:
    spec = parse_type("tuple[list[int], int]")
    returned = {"t": "tuple", "v": [value, tag_int(1)]}
    problem = checks.type_problem(
        returned, spec, "your return value", ("accepted_tokens", "num_accepted")
    )
    assert problem is not None and message in problem


def test_numpy_integers_count_as_ints() -> None:
    spec = parse_type("list[int]")
    value = {"t": "list", "v": [{"t": "numpy", "dtype": "int64", "v": 2}, tag_int(3)]}
    assert checks.type_problem(value, spec, "x") is None


def test_a_tuple_of_the_wrong_length_is_named() -> None:
    spec = parse_type("tuple[list[int], int]")
    value = {"t": "tuple", "v": [{"t": "list", "v": []}]}
    assert "tuple of 2 items, got 1" in checks.type_problem(value, spec, "your return value")


def test_sequence_feedback_uses_the_exercise_wording() -> None:
    wording = Feedback(
        extra="position {i}: you accepted token {actual} but the reference rejected it",
        missing="position {i}: you rejected token {expected} but the reference accepted it",
    )
    assert checks.value_problem([10, 20], [10], "x", wording) == (
        "position 1: you accepted token 20 but the reference rejected it"
    )
    assert checks.value_problem([], [5], "x", wording) == (
        "position 0: you rejected token 5 but the reference accepted it"
    )
    assert checks.value_problem([1, 2], [1, 2], "x", wording) is None
    assert "you returned 3 but the reference returned 2" in checks.value_problem(3, 2, "n", wording)


def test_an_empty_answer_gets_the_exercise_sentence_when_it_has_one() -> None:
    never_empty = Feedback(empty="you returned no tokens; the reference returned {expected}")
    assert checks.value_problem([], [0, 2], "x", never_empty) == (
        "you returned no tokens; the reference returned [0, 2]"
    )
    assert checks.value_problem([], [], "x", never_empty) is None
    assert checks.value_problem([1], [0, 2], "x", never_empty) == (
        "position 0: you returned 1 but the reference returned 0"
    )


def test_equality_is_on_plain_data_with_exact_kinds() -> None:
    assert checks.same([1, 2], [1, 2])
    assert not checks.same([True], [1])
    assert checks.same(0.1 + 0.2, 0.3)
    assert not checks.same("1", 1)


def test_draw_counts_are_told_both_ways() -> None:
    assert (
        checks.draws_problem(4, 3) == "your function drew 4 random numbers; the reference draws 3"
    )
    assert checks.draws_problem(1, 2) == "your function drew 1 random number; the reference draws 2"
    assert checks.draws_problem(3, 3) is None
    assert checks.draws_problem(5, None) is None


def test_mutation_is_detected_per_argument() -> None:
    inputs = {"draft": [1, 2], "p": [[0.5, 0.5]]}
    kinds = {"draft": "list", "p": "ndarray"}
    unchanged = {"draft": {"t": "list", "v": [tag_int(1), tag_int(2)]}, "p": [[0.5, 0.5]]}
    assert checks.mutation_problem(inputs, unchanged, kinds) is None
    popped = dict(unchanged, draft={"t": "list", "v": [tag_int(1)]})
    assert "modified its argument draft" in checks.mutation_problem(inputs, popped, kinds)
    scaled = dict(unchanged, p=[[1.0, 1.0]])
    assert "modified its argument p" in checks.mutation_problem(inputs, scaled, kinds)


def test_internal_paths_are_scrubbed() -> None:
    text = f"error in {sys.prefix}/lib/python3.11/site-packages/numpy/x.py"
    assert sys.prefix not in checks.scrub(text)
    assert "<judge>" in checks.scrub(text)
