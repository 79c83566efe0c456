"""Sentences that teach: what the reference did at the first divergence, and the draws made.

The reference's trace is exercise data (a trusted ``trace.py`` beside the solution, run in the
reference's own child): a list of steps, each an accept test or a sample, tagged with the output
position it decided. Nothing here knows an exercise; it words whatever steps the trace holds.
A trace that does not have the expected shape costs the explanation, never the grade.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from app.grading import compare
from sandbox import CaseRun


def number(value: Any, digits: int = 4) -> str:
    """A number as a learner reads it: four significant digits (or ``digits``), no exponent for
    the usual."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    if math.isinf(value):
        return "infinity" if value > 0 else "-infinity"
    if value == 0:
        return "0"
    text = f"{value:.{digits}g}"
    if "e" in text and 1e-6 <= abs(value) < 1e6:
        text = f"{value:.{digits + 2}f}".rstrip("0").rstrip(".")
    return text


def digits_apart(value: Any, *others: Any) -> int:
    """The fewest significant digits (four at least) at which ``value`` reads differently from
    each of ``others`` it differs from: a draw of 0.70000001 beside a boundary of 0.7 must not
    read "u = 0.7, which falls in [0.7, 0.8)" (17 digits tell any two floats apart)."""
    for digits in (4, 6, 8, 10, 12, 14, 17):
        shown = number(value, digits)
        if all(other == value or number(other, digits) != shown for other in others):
            return digits
    return 17


def _numbers(values: Sequence[Any]) -> str:
    return "[" + ", ".join(number(v) for v in values) + "]"


def first_divergence(actual: Any, expected: Any) -> int | None:
    """The first position where the returned token sequence departs from the reference's.

    The sequence is the return value itself when it is a flat list, or its first item when the
    function returns a tuple led by a list (as ``(tokens, count)``). A function that returns one
    token (an int) departs at position 0 when its token differs.
    """
    if _is_token(expected):
        return 0 if not (_is_token(actual) and actual == expected) else None
    if isinstance(expected, list) and expected and isinstance(expected[0], list):
        if not (isinstance(actual, list) and actual and isinstance(actual[0], list)):
            return None
        actual, expected = actual[0], expected[0]
    if not isinstance(expected, list) or not isinstance(actual, list):
        return None
    for position in range(max(len(actual), len(expected))):
        if position >= len(actual) or position >= len(expected):
            return position
        if actual[position] != expected[position]:
            return position
    return None


def _is_token(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _accept_sentence(step: dict[str, Any]) -> str:
    var = str(step.get("var", "u"))
    u, a = step["u"], step["a"]
    draft, target = step["draft"], step["target"]
    if draft == 0 and target == 0 and a == 0:
        # The resample reference's u < p/q with numpy's 0 / 0 (nan): never true.
        rule = f"a = 0 (token {step['token']}: 0 / 0 is not a number, and u < nan is false)"
    elif draft == 0:
        rule = f"a = 1 (the draft's probability of token {step['token']} is 0)"
    else:
        rule = f"a = min(1, {number(target)} / {number(draft)}) = {number(a)}"
    digits = digits_apart(u, a)
    shown_u, shown_a = number(u, digits), number(a, digits)
    if step["accepted"]:
        decision = f"{var} = {shown_u} < {shown_a}: accepted"
    else:
        tie = " (exactly equal: the test is strict)" if u == a else ""
        decision = f"{var} = {shown_u} >= {shown_a}{tie}: rejected"
    return f"token {step['token']}: draw {step['draw']} gave {var} = {shown_u}; {rule}; {decision}"


def _sample_sentence(step: dict[str, Any]) -> str:
    var = str(step.get("var", "u"))
    source = str(step.get("source", "a distribution"))
    weights = step["weights"]
    low, high = step["interval"]
    if "raw" in step:
        made = f"{source} = {_numbers(step['raw'])}, normalised {_numbers(weights)}"
    else:
        made = f"{source} = {_numbers(weights)}"
    u = step["u"]
    digits = digits_apart(u, low, high)
    return (
        f"the next token came from {made}, running sums {_numbers(step['running'])}; "
        f"draw {step['draw']} gave {var} = {number(u, digits)}, which falls in "
        f"[{number(low, digits)}, {number(high, digits)}): token {step['token']}"
    )


def _token_sentence(step: dict[str, Any]) -> str:
    """A sample that decided the whole return value (one token): the draw first, as a learner
    replays it ("draw 1 gave u = 0.62; running sums over the kept tokens [0.5, 0.8, 1]; u falls
    in [0.5, 0.8): token 2")."""
    var = str(step.get("var", "u"))
    source = str(step.get("source", "the tokens"))
    low, high = step["interval"]
    running, u = step["running"], step["u"]
    if "raw" in step:  # the source named once, with the weights it was made of
        sums = (
            f"{source} = {_numbers(step['raw'])}, normalised {_numbers(step['weights'])}; "
            f"running sums {_numbers(running)}"
        )
    else:
        sums = f"running sums over {source} {_numbers(running)}"
    if running and u >= running[-1]:
        # Round-off: the sums stop short of 1 and the draw is above them all. Four digits would
        # show both as 1, and so would twelve for 0.9999999999999999: this says them in full
        # (the shortest digits that read back as the same float).
        return (
            f"draw {step['draw']} gave {var} = {float(u)!r}; {sums}, the last "
            f"{float(running[-1])!r} "
            f"by round-off; no running sum exceeds {var}, so the last token of probability "
            f"above 0: token {step['token']}"
        )
    digits = digits_apart(u, low, high)
    return (
        f"draw {step['draw']} gave {var} = {number(u, digits)}; {sums}; {var} falls in "
        f"[{number(low, digits)}, {number(high, digits)}): token {step['token']}"
    )


def _step_sentence(step: Any, single: bool = False) -> str:
    if not isinstance(step, dict):
        raise ValueError("a trace step must be an object")
    if step.get("kind") == "accept":
        return _accept_sentence(step)
    if step.get("kind") == "sample":
        return _token_sentence(step) if single else _sample_sentence(step)
    raise ValueError(f"unknown trace step {step.get('kind')!r}")


def explain_divergence(trace: Any, position: int, single: bool = False) -> str | None:
    """The reference's steps at ``position`` in words, or None if the trace cannot say.
    ``single``: the return value is one token, so position 0 is the whole answer."""
    if not isinstance(trace, list):
        return None
    here = [s for s in trace if isinstance(s, dict) and s.get("position") == position]
    lead = "What the reference did" if single else f"What the reference did at position {position}"
    if not here and position > 0:
        # The learner went on past the reference's last token: show how the reference ended.
        here = [s for s in trace if isinstance(s, dict) and s.get("position") == position - 1]
        lead = f"The reference's step ended at position {position - 1}"
    if not here:
        return None
    try:
        parts = [_step_sentence(step, single) for step in here]
    except (KeyError, TypeError, ValueError):
        return None
    return f"{lead}: " + "; then ".join(parts) + "."


def _drawn_list(values: Sequence[float | None], count: int | None) -> str:
    shown = ", ".join("?" if v is None else _draw(v) for v in values)
    if count is not None and count > len(values):
        shown += ", ..."
    return shown


def _draw(value: float) -> str:
    """A drawn number, four digits as usual, but in full where they would round it to 1 (a
    value random() never gives: the round-off cases draw 0.99999999995 on purpose)."""
    shown = number(value)
    return repr(float(value)) if shown == "1" and value != 1 else shown


def _random_numbers(n: int) -> str:
    return f"{n} random number{'s' if n != 1 else ''}"


def _reference_draws(expected: int, listed: Sequence[float | None] | None) -> str:
    """The reference's side of every draw-count sentence, with its numbers when recorded."""
    return f"the reference draws {expected}" + (
        f" ({_drawn_list(listed, expected)})" if listed is not None else ""
    )


def no_draw_sentence(why: str) -> str:
    """A whole-function check's call that drew nothing from its generator (``why`` such a
    call cannot follow the law): its tokens would say nothing about the function."""
    return (
        f"drew no number from the generator it was given, yet {why}: the check judges tokens "
        "that come from that generator"
    )


def draws_sentence(
    actual: int | None,
    expected: int | None,
    drawn: Sequence[float | None] | None,
    reference_drawn: Sequence[float | None] | None,
) -> str | None:
    """When the draw counts differ: both counts and, where recorded, both sequences."""
    if expected is None or actual == expected:
        return None
    if actual is None:
        return "the number of random numbers drawn could not be measured"
    yours, theirs = "", None  # the sequences, shown only when both were recorded
    if drawn is not None and reference_drawn is not None:
        yours = f" ({_drawn_list(drawn, actual)})" if actual else ""
        theirs = reference_drawn if expected else None
    drew = f"your function drew {_random_numbers(actual)}{yours}"
    return f"{drew}; {_reference_draws(expected, theirs)}"


def exhausted_sentence(
    drawn: int | None,
    expected: int | None,
    values: Sequence[float | None] | None = None,
    reference_drawn: Sequence[float | None] | None = None,
) -> str:
    """For a case whose scripted random numbers ran out."""
    asked = f"asked for random number {drawn}" if drawn else "asked for more random numbers"
    text = f"your function {asked}, more than this case provides"
    if values:
        text += f" (it had drawn {_drawn_list(values, None)})"
    if expected is not None:
        text += f"; {_reference_draws(expected, reference_drawn or None)}"
    return text


def expected_from_run(run: CaseRun, counts_draws: bool) -> dict[str, Any]:
    """A reference run as a case's ``expected``: its value, and what feedback needs of it.

    ``draws`` and ``drawn`` (the numbers it drew) when the exercise counts draws; ``trace``
    when the reference job ran the exercise's trace function and it succeeded.
    """
    expected: dict[str, Any] = {"value": compare.plain(run.value)}
    if counts_draws:
        expected["draws"] = run.draws
        expected["drawn"] = list(run.drawn or ())
    if run.trace is not None and not (isinstance(run.trace, dict) and "trace_error" in run.trace):
        expected["trace"] = run.trace
    return expected
