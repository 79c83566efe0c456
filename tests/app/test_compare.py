"""The trusted comparisons and their learner-facing sentences."""

from __future__ import annotations

import sys

import pytest

from app.grading import compare as cmp
from app.grading.compare import Feedback, parse_type
from app.grading.tolerance import EXACT, Tolerance

TOLERANT = Tolerance(rel_tol=1e-9, abs_tol=1e-12)


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
        ({"t": "too_big", "type": "list"}, "accepted_tokens is a list too large to report"),
        ({"t": "too_big", "type": "tuple"}, "must be a list, got a tuple too large to report"),
    ],
)
def test_type_problems_say_exactly_what_is_wrong(value, message) -> None:
    spec = parse_type("tuple[list[int], int]")
    returned = {"t": "tuple", "v": [value, tag_int(1)]}
    problem = cmp.type_problem(
        returned, spec, "your return value", ("accepted_tokens", "num_accepted")
    )
    assert problem is not None and message in problem


def test_numpy_integers_count_as_ints() -> None:
    spec = parse_type("list[int]")
    value = {"t": "list", "v": [{"t": "numpy", "dtype": "int64", "v": 2}, tag_int(3)]}
    assert cmp.type_problem(value, spec, "x") is None


def test_a_tuple_of_the_wrong_length_is_named() -> None:
    spec = parse_type("tuple[list[int], int]")
    value = {"t": "tuple", "v": [{"t": "list", "v": []}]}
    assert "tuple of 2 items, got 1" in cmp.type_problem(value, spec, "your return value")


def test_sequence_feedback_uses_the_exercise_wording() -> None:
    wording = Feedback(
        extra="position {i}: you accepted token {actual} but the reference rejected it",
        missing="position {i}: you rejected token {expected} but the reference accepted it",
    )
    assert cmp.value_problem([10, 20], [10], "x", wording) == (
        "position 1: you accepted token 20 but the reference rejected it"
    )
    assert cmp.value_problem([], [5], "x", wording) == (
        "position 0: you rejected token 5 but the reference accepted it"
    )
    assert cmp.value_problem([1, 2], [1, 2], "x", wording) is None
    assert "you returned 3 but the reference returned 2" in cmp.value_problem(3, 2, "n", wording)


def test_an_empty_answer_gets_the_exercise_sentence_when_it_has_one() -> None:
    never_empty = Feedback(empty="you returned no tokens; the reference returned {expected}")
    assert cmp.value_problem([], [0, 2], "x", never_empty) == (
        "you returned no tokens; the reference returned [0, 2]"
    )
    assert cmp.value_problem([], [], "x", never_empty) is None
    assert cmp.value_problem([1], [0, 2], "x", never_empty) == (
        "position 0: you returned 1 but the reference returned 0"
    )


def test_equality_is_on_plain_data_with_exact_kinds() -> None:
    assert cmp.same([1, 2], [1, 2])
    assert not cmp.same([True], [1])
    assert cmp.same(0.1 + 0.2, 0.3, TOLERANT)
    assert not cmp.same(0.1 + 0.2, 0.3)  # without a declared tolerance, floats are exact
    assert not cmp.same("1", 1)


def test_mutation_is_detected_per_argument() -> None:
    inputs = {"draft": [1, 2], "p": [[0.5, 0.5]]}
    kinds = {"draft": "list", "p": "ndarray"}
    unchanged = {"draft": {"t": "list", "v": [tag_int(1), tag_int(2)]}, "p": [[0.5, 0.5]]}
    assert cmp.mutation_problem(inputs, unchanged, kinds) is None
    popped = dict(unchanged, draft={"t": "list", "v": [tag_int(1)]})
    assert "modified its argument draft" in cmp.mutation_problem(inputs, popped, kinds)
    scaled = dict(unchanged, p=[[1.0, 1.0]])
    assert "modified its argument p" in cmp.mutation_problem(inputs, scaled, kinds)


def test_internal_paths_are_scrubbed() -> None:
    text = f"error in {sys.prefix}/lib/python3.11/site-packages/numpy/x.py"
    assert sys.prefix not in cmp.scrub(text)
    assert "<judge>" in cmp.scrub(text)


def tag_float(v):
    return {"t": "float", "v": v}


GAMMA = parse_type("tuple[int, float]")
GAMMA_NAMES = ("gamma", "speedup")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"t": "list", "v": [tag_int(8), tag_float(3.09)]},
            "your return value must be a tuple, got list",
        ),
        (
            {"t": "tuple", "v": [tag_float(8.0), tag_float(3.09)]},
            "gamma must be an int, got float (8.0)",
        ),
        (
            {"t": "tuple", "v": [{"t": "numpy", "dtype": "float64", "v": 8.0}, tag_float(3.09)]},
            "gamma must be an int, got numpy.float64 (8.0)",
        ),
        (
            {"t": "tuple", "v": [{"t": "bool", "v": True}, tag_float(1.0)]},
            "gamma must be an int, got bool",
        ),
        (
            {"t": "tuple", "v": [tag_int(8), {"t": "str", "v": "3.09"}]},
            "speedup must be a float, got str",
        ),
        ({"t": "tuple", "v": [tag_int(8)]}, "must be a tuple of 2 items, got 1"),
    ],
)
def test_an_int_and_a_float_in_a_tuple_are_what_is_due(value, message) -> None:
    problem = cmp.type_problem(value, GAMMA, "your return value", GAMMA_NAMES)
    assert problem is not None and message in problem


def test_numpy_numbers_and_an_int_speedup_fit_a_tuple_of_int_and_float() -> None:
    numpy_pair = {
        "t": "tuple",
        "v": [
            {"t": "numpy", "dtype": "int64", "v": 8},
            {"t": "numpy", "dtype": "float64", "v": 3.0},
        ],
    }
    assert cmp.type_problem(numpy_pair, GAMMA, "x", GAMMA_NAMES) is None
    whole = {"t": "tuple", "v": [tag_int(0), tag_int(1)]}  # f(0) = 1 written as an int
    assert cmp.type_problem(whole, GAMMA, "x", GAMMA_NAMES) is None


def test_a_float_off_the_reference_says_by_how_much() -> None:
    assert cmp.value_problem(3.0912, 3.0921, "speedup", Feedback(), TOLERANT) == (
        "speedup: you returned 3.0912, the reference 3.0921 (off by 9.0e-4, relative 2.9e-4; "
        "the tolerance is 1e-9 relative)"
    )
    # Near zero the absolute bound is the one that applies, and there is no relative error.
    assert cmp.value_problem(1e-9, 0.0, "x", Feedback(), TOLERANT) == (
        "x: you returned 1e-09, the reference 0.0 (off by 1.0e-9; the tolerance is 1e-12 absolute)"
    )
    assert cmp.value_problem(1.5, 1.0, "x", Feedback()) == (
        "x: you returned 1.5, the reference 1.0 (off by 0.5, relative 0.5; "
        "floats must match the reference exactly)"
    )


def test_within_the_tolerance_passes_and_just_outside_fails() -> None:
    expected = 3.0920795428571433
    assert cmp.value_problem(expected * (1 + 5e-10), expected, "s", Feedback(), TOLERANT) is None
    assert cmp.value_problem(expected * (1 - 5e-10), expected, "s", Feedback(), TOLERANT) is None
    assert cmp.value_problem(expected * (1 + 2e-9), expected, "s", Feedback(), TOLERANT)
    assert cmp.same(1e-13, 0.0, TOLERANT) and not cmp.same(1e-11, 0.0, TOLERANT)
    # an int where a float is due is compared by value, within the same bound
    assert cmp.same(1, 1.0) and cmp.same(1, 1.0 + 1e-12, TOLERANT)
    assert not cmp.same(1, 1.0 + 1e-12)


def test_ints_are_exact_whatever_the_tolerance() -> None:
    loose = Tolerance(rel_tol=0.5, abs_tol=10)
    assert not cmp.same(9, 8, loose)
    assert cmp.value_problem(9, 8, "gamma", Feedback(), loose) == (
        "gamma: you returned 9 but the reference returned 8"
    )
    assert not cmp.same(True, 1.0, loose)


def test_non_finite_floats_are_named_not_quoted() -> None:
    # the sandbox sends nan and infinities as these strings (JSON has neither)
    assert cmp.value_problem("nan", 5.5, "speedup", Feedback(), TOLERANT) == (
        "speedup: you returned nan (not a number), the reference 5.5"
    )
    assert cmp.value_problem("inf", 5.5, "speedup", Feedback(), TOLERANT) == (
        "speedup: you returned inf, the reference 5.5"
    )
    assert cmp.same("nan", "nan", TOLERANT) and cmp.same("-inf", "-inf")
    assert not cmp.same("inf", "-inf", TOLERANT)


def test_a_non_finite_float_inside_a_list_is_written_as_python_writes_it() -> None:
    returned = {"t": "list", "v": [{"t": "float", "v": "-inf"}, {"t": "str", "v": "-inf"}]}
    shown = cmp.plain(returned)
    assert shown == ["-inf", "-inf"]  # the report's JSON: JSON has no infinities
    # In words the float is -inf and the learner's string '-inf' stays a quoted string.
    assert repr(shown) == "[-inf, '-inf']"
    problem = cmp.value_problem(shown, [-800.75, "x"], "scores", Feedback(), TOLERANT)
    assert problem is not None and "you returned -inf" in problem, problem


def test_floats_in_a_list_are_compared_item_by_item_with_the_tolerance() -> None:
    assert cmp.same([1.0, 2.0 + 1e-12], [1.0, 2.0], TOLERANT)
    assert cmp.value_problem([1.0, 2.5], [1.0, 2.0], "x", Feedback(), TOLERANT) == (
        "position 1: you returned 2.5, the reference 2.0 (off by 0.5, relative 0.25; "
        "the tolerance is 1e-9 relative)"
    )


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ({"rel_tol": -1e-9}, "rel_tol must be a finite number >= 0"),
        ({"abs_tol": float("nan")}, "abs_tol must be a finite number >= 0"),
        ({"abs_tol": float("inf")}, "abs_tol must be a finite number >= 0"),
        ({"rel_tol": True}, "rel_tol must be a finite number >= 0"),
        ({"rel_tol": "1e-9"}, "rel_tol must be a finite number >= 0"),
        ({"rel_tol": 1.0}, "rel_tol must be below 1"),
    ],
)
def test_a_tolerance_is_refused_unless_it_makes_sense(fields, complaint) -> None:
    with pytest.raises(ValueError, match=complaint):
        Tolerance(**fields)


def test_the_default_tolerance_is_exact() -> None:
    assert EXACT.exact and Tolerance() == EXACT and not TOLERANT.exact
    assert EXACT.allows(0.3, 0.3) and not EXACT.allows(0.1 + 0.2, 0.3)


def test_a_whole_value_too_large_to_report_is_not_told_its_type_is_wrong() -> None:
    spec = parse_type("tuple[list[int], int]")
    huge = {"t": "too_big", "type": "tuple"}
    problem = cmp.type_problem(huge, spec, "your return value") or ""
    assert problem == "your return value is a tuple too large to report, so it cannot be checked"


def test_values_too_large_to_show_are_never_equal_not_even_to_each_other() -> None:
    from app.grading.compare import mutation_problem, plain, same

    big = {"t": "int", "v": None, "big": True}
    huge = {"t": "too_big", "type": "list"}
    assert not same(plain(big), plain(big))
    assert not same(plain(huge), plain(huge))
    assert not same([plain(big)], [plain(big)])
    assert plain(big) != plain(big)
    # A placeholder after the call is a modified argument: the child sends back only those no
    # longer as built, and no input is too large to send or holds an integer past 64 bits.
    kinds = {"xs": "list"}
    grown = mutation_problem({"xs": [1]}, {"xs": huge}, kinds) or ""
    assert grown.startswith("your function modified its argument xs (afterwards it was too large")
    after = {"xs": {"t": "list", "v": [big]}}
    assert (mutation_problem({"xs": [1]}, after, kinds) or "").startswith(
        "your function modified its argument xs"
    )


def test_unchecked_arguments_are_named() -> None:
    from app.grading.compare import unchecked_arguments

    kinds = {"a": "list", "b": "ndarray", "c": "value"}
    after = {"a": {"t": "list", "v": []}, "b": {"t": "too_big", "type": "ndarray"}, "c": None}
    assert unchecked_arguments(after, kinds) == ["b"]


def test_an_unseen_part_is_found_at_any_depth() -> None:
    from app.grading.compare import unchecked_arguments

    kinds = {"a": "list", "b": "ndarray"}

    def tagged(*items: dict) -> dict:
        return {"t": "list", "v": list(items)}

    number = {"t": "int", "v": 3}
    deep = tagged(number, tagged(number, tagged({"t": "too_big", "type": "list"})))
    big = tagged(number, {"t": "int", "v": None, "big": True})
    pairs = {"t": "dict", "v": [[{"t": "str", "v": "k"}, {"t": "too_big", "type": "list"}]]}
    plain_rows = [[0.5, 0.25], [0.125, 1.0]]  # an ndarray's snapshot: plain numbers
    assert unchecked_arguments({"a": deep, "b": plain_rows}, kinds) == ["a"]
    assert unchecked_arguments({"a": big, "b": plain_rows}, kinds) == ["a"]
    assert unchecked_arguments({"a": pairs, "b": plain_rows}, kinds) == ["a"]
    # A string that reads "too_big" is a value the learner left there, not the marker.
    said = tagged(number, {"t": "str", "v": "too_big"}, tagged({"t": "str", "v": "big"}))
    assert unchecked_arguments({"a": said, "b": plain_rows}, kinds) == []
    assert unchecked_arguments(
        {"a": tagged(), "b": {"t": "too_big", "type": "ndarray"}}, kinds
    ) == ["b"]


def test_a_list_of_the_input_turned_into_a_tuple_is_a_modification() -> None:
    """An input is JSON (no tuples), and values are compared as plain data (tuples as lists):
    the caller's beams turned into tuples in place passed before."""
    from app.grading.compare import mutation_problem

    kinds = {"beams": "value"}
    inputs = {"beams": [[[1], -0.5]]}

    def tagged(kind: str, *items: dict) -> dict:
        return {"t": kind, "v": list(items)}

    one, score = {"t": "int", "v": 1}, {"t": "float", "v": -0.5}
    as_tuple = tagged("list", tagged("tuple", tagged("list", one), score))
    said = mutation_problem(inputs, {"beams": as_tuple}, kinds) or ""
    assert said.startswith("your function modified its argument beams (it turned a list in it")
    as_lists = tagged("list", tagged("list", tagged("list", one), score))
    assert mutation_problem(inputs, {"beams": as_lists}, kinds) is None
