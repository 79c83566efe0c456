"""The teaching sentences: numbers as learners read them, divergences, malformed traces."""

from __future__ import annotations

from app.grading import feedback

ACCEPT = {
    "kind": "accept",
    "position": 0,
    "token": 10,
    "draw": 1,
    "var": "r",
    "u": 0.9507143064099162,
    "target": 0.4,
    "draft": 0.5,
    "a": 0.8,
    "accepted": False,
}


def test_numbers_have_four_significant_digits() -> None:
    assert feedback.number(0.9507143064099162) == "0.9507"
    assert feedback.number(1.0) == "1"
    assert feedback.number(0) == "0"
    assert feedback.number(0.00012345) == "0.0001234"
    assert feedback.number(float("inf")) == "infinity"


def test_first_divergence_of_a_list_and_of_a_tuple_led_by_a_list() -> None:
    assert feedback.first_divergence([1, 2, 0], [1, 2, 0]) is None
    assert feedback.first_divergence([1, 3], [1, 2, 0]) == 1
    assert feedback.first_divergence([1, 2], [1, 2, 0]) == 2
    assert feedback.first_divergence([1, 2, 0, 4], [1, 2, 0]) == 3
    assert feedback.first_divergence([[10, 20], 2], [[10], 1]) == 1
    assert feedback.first_divergence([[10], 1], [[10], 1]) is None
    assert feedback.first_divergence(3, [[10], 1]) is None


def test_an_accept_test_is_worded_with_its_parts() -> None:
    text = feedback.explain_divergence([ACCEPT], 0)
    assert text == (
        "What the reference did at position 0: token 10: draw 1 gave r = 0.9507; "
        "a = min(1, 0.4 / 0.5) = 0.8; r = 0.9507 >= 0.8: rejected."
    )


def test_a_zero_draft_probability_is_certain_acceptance() -> None:
    step = dict(ACCEPT, draft=0.0, target=0.25, a=1.0, u=0.5, accepted=True)
    text = feedback.explain_divergence([step], 0) or ""
    assert "a = 1 (the draft's probability of token 10 is 0)" in text
    assert "r = 0.5 < 1: accepted" in text


def test_a_draw_above_running_sums_short_of_one_is_said_in_full() -> None:
    # Ten tokens of 0.1 add up to 0.9999999999999999; a draw of that size is above them all.
    running = [0.1 * n for n in range(1, 10)] + [0.9999999999999999]
    step = {
        "kind": "sample",
        "position": 0,
        "source": "softmax(logits)",
        "weights": [0.1] * 10,
        "running": running,
        "draw": 1,
        "var": "u",
        "u": 0.9999999999999999,
        "token": 9,
        "interval": [running[-2], 1.0],
    }
    text = feedback.explain_divergence([step], 0, single=True) or ""
    assert "gave u = 0.9999999999999999;" in text, text
    assert "the last 0.9999999999999999 by round-off" in text, text


def test_past_the_reference_end_the_last_step_is_shown() -> None:
    text = feedback.explain_divergence([ACCEPT], 1) or ""
    assert text.startswith("The reference's step ended at position 0: token 10")


def test_a_malformed_trace_costs_the_explanation_only() -> None:
    for trace in (None, "text", [1, 2], [{"kind": "accept", "position": 0}], [{"position": 0}]):
        assert feedback.explain_divergence(trace, 0) is None
    assert feedback.explain_divergence([ACCEPT], 5) is None


def test_draw_sequences_when_counts_differ() -> None:
    assert feedback.draws_sentence(2, 2, [0.5, 0.25], [0.5, 0.25]) is None
    assert feedback.draws_sentence(3, 2, [0.5, 0.375, 0.75], [0.5, 0.375]) == (
        "your function drew 3 random numbers (0.5, 0.375, 0.75); the reference draws 2 (0.5, 0.375)"
    )
    assert feedback.draws_sentence(0, 1, [], [0.5]) == (
        "your function drew 0 random numbers; the reference draws 1 (0.5)"
    )
    # Past the recorded cap the list says it goes on.
    assert "(0.5, ...)" in (feedback.draws_sentence(70, 1, [0.5], [0.5]) or "")
    assert feedback.draws_sentence(4, 3, None, None) == (
        "your function drew 4 random numbers; the reference draws 3"
    )


def test_draw_counts_without_the_sequences_are_told_both_ways() -> None:
    # The sentence reports use (feedback.draws_sentence), where no sequence was recorded.
    assert feedback.draws_sentence(1, 2, None, None) == (
        "your function drew 1 random number; the reference draws 2"
    )
    assert feedback.draws_sentence(3, 3, None, None) is None
    assert feedback.draws_sentence(5, None, None, None) is None
    assert feedback.draws_sentence(None, 2, None, None) == (
        "the number of random numbers drawn could not be measured"
    )
