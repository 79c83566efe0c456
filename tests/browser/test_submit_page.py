"""The page's Submit button, result groups and "Try your own input" panel, in real Chromium."""

from __future__ import annotations

from typing import Any

import pytest
from test_page import WRONG, open_exercise, set_code, solution

MULTIPLY_NO_GUARD = (
    "import numpy as np\n\n"
    "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
    "    np.random.seed(42)\n"
    "    kept = []\n"
    "    for d, t, token in zip(draft_probs, target_probs, draft_tokens):\n"
    "        if np.random.uniform() * d < t:\n"
    "            kept.append(int(token))\n"
    "        else:\n"
    "            break\n"
    "    return kept, len(kept)\n"
)


def wait_for_report(page: Any) -> None:
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=summary]');"
        " return s && !s.classList.contains('summary--running')"
        " && !s.classList.contains('summary--idle'); }"
    )


def test_submit_groups_the_results_and_shows_the_seed(page: Any, server: Any) -> None:
    exercise_id = "speculative-decoding-verify"
    p = open_exercise(page, exercise_id)
    detail = server.api(f"/api/exercises/{exercise_id}")
    set_code(p, MULTIPLY_NO_GUARD)
    p.get_by_test_id("run").click()
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() == "Accepted"  # the examples miss it
    p.get_by_test_id("submit").click()
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() != "Accepted"
    rows = p.get_by_test_id("test-result")
    assert rows.count() == 6 + detail["submit_cases"]
    groups = [row.get_attribute("data-group") for row in rows.all()]
    assert groups == sorted(groups, key=["example", "extra", "random"].index)
    assert set(groups) == {"example", "extra", "random"}
    headings = p.get_by_test_id("test-group")
    assert [h.get_attribute("data-group") for h in headings.all()] == ["example", "extra", "random"]
    seed = p.get_by_test_id("report-seed").inner_text()
    assert "random seed" in seed and seed.split()[-1] in headings.nth(2).inner_text()
    failed = p.locator("[data-testid=test-result][data-status=fail]").first
    assert failed.get_attribute("data-group") == "extra"
    assert "draft = target = 0" in failed.inner_text()
    page.screenshot("submit-groups")


def test_failing_random_cases_can_be_submitted_again_with_their_seed(page: Any) -> None:
    p = open_exercise(page, "sampling-inverse-cdf")
    set_code(p, "def sample_token(probs, rng):\n    rng.random()\n    return 0\n")
    p.get_by_test_id("submit").click()
    wait_for_report(p)
    seed = int(p.get_by_test_id("report-seed").inner_text().split()[-1])
    replay = p.get_by_test_id("replay-seed")
    assert replay.count() == 1 and replay.inner_text() == f"Submit again with seed {seed}"
    with p.expect_response("**/submissions") as answered:
        replay.click()
    sent = answered.value.request.post_data_json
    assert (sent["mode"], sent["seed"]) == ("submit", seed)
    assert answered.value.json()["replayed_seed"] == seed
    wait_for_report(p)
    # A Submit whose random cases all pass offers no replay.
    set_code(p, solution("sampling-inverse-cdf"))
    p.get_by_test_id("submit").click()
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() == "Accepted"
    assert p.get_by_test_id("replay-seed").count() == 0


def test_ctrl_shift_enter_submits_from_the_editor(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-resample")
    set_code(p, solution("speculative-decoding-resample"))
    p.keyboard.press("ControlOrMeta+Shift+Enter")
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() == "Accepted"
    assert p.locator("[data-testid=test-result][data-group=random]").count() == 20


def test_submit_on_choose_gamma_grades_extra_and_random_cases(page: Any, server: Any) -> None:
    exercise_id = "speculative-decoding-choose-gamma"
    detail = server.api(f"/api/exercises/{exercise_id}")
    p = open_exercise(page, exercise_id)
    set_code(p, solution(exercise_id))
    p.get_by_test_id("submit").click()
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() == "Accepted"
    rows = p.get_by_test_id("test-result")
    assert rows.count() == 6 + detail["submit_cases"]
    assert p.locator("[data-testid=test-result][data-group=random]").count() == 20
    # the classic slip: a float gamma passes no case, and the row says why
    set_code(p, solution(exercise_id).replace("return best_gamma,", "return float(best_gamma),"))
    p.get_by_test_id("submit").click()
    wait_for_report(p)
    assert p.get_by_test_id("verdict").inner_text() != "Accepted"
    failed = p.locator("[data-testid=test-result][data-status=fail]").first
    assert "float" in failed.inner_text()


@pytest.mark.parametrize(
    ("exercise_id", "fields", "expected"),
    [
        (
            "speculative-decoding-verify",
            # Python literals: a tuple and None are fine
            {"draft_probs": "(0.5, 0.5, 0.5)", "target_probs": "[0.4, 0.4, 0.4]",
             "draft_tokens": "[10, 20, 30]", "target_dist_next": "None"},
            "[[10], 1]",
        ),
        ("speculative-decoding-resample", {"rng": "[0.5, 0.8, 0.1]"}, "[1, 2, 0]"),
        # f(1) = (1 - 0.5**2) / (0.5 * 1.25) = 1.2 beats f(0) = 1 and f(2) = 1.1666...
        ("speculative-decoding-choose-gamma",
         {"alpha": "0.5", "c": "0.25", "max_gamma": "4"}, "[1, 1.2]"),
    ],
)  # fmt: skip
def test_custom_input_shows_the_learner_beside_the_reference(
    page: Any, exercise_id: str, fields: dict[str, str], expected: str
) -> None:
    p = open_exercise(page, exercise_id)
    panel = p.get_by_test_id("custom-input")
    for field, text in fields.items():
        box = panel.locator(f"[data-testid=custom-field][data-name={field}]")
        assert box.input_value()  # prefilled from the first example
        box.fill(text)
    set_code(p, WRONG[exercise_id])
    p.get_by_test_id("custom-run").click()
    result = p.get_by_test_id("custom-result")
    result.get_by_test_id("custom-verdict").wait_for()
    assert result.get_by_test_id("custom-verdict").inner_text() == "Differs from the reference"
    assert result.get_by_test_id("custom-expected").inner_text() == expected
    assert result.get_by_test_id("custom-actual").inner_text() != expected
    # the reference's own code: the same as the reference
    set_code(p, solution(exercise_id))
    p.get_by_test_id("custom-run").click()
    p.wait_for_function(
        "() => document.querySelector('[data-testid=custom-verdict]')"
        "?.textContent === 'Same as the reference'"
    )
    assert result.get_by_test_id("custom-actual").inner_text() == expected
    page.screenshot(f"custom-{exercise_id}")


def test_a_bad_custom_input_names_the_field(page: Any) -> None:
    page.allowed_errors.append("status of 422")  # Chromium logs the API's 422 as a console error
    p = open_exercise(page, "speculative-decoding-verify")
    panel = p.get_by_test_id("custom-input")
    panel.locator("[data-testid=custom-field][data-name=draft_probs]").fill("[0.5, 'x']")
    p.get_by_test_id("custom-run").click()
    problem = p.get_by_test_id("custom-problem")
    problem.wait_for()
    # The field as it is labelled (the API's "input." left out), marked and focused.
    assert problem.inner_text().startswith("draft_probs[1]:")
    field = panel.locator("[data-testid=custom-field][data-name=draft_probs]")
    assert field.get_attribute("aria-invalid") == "true"
    assert p.evaluate("() => document.activeElement.dataset.name") == "draft_probs"
    panel.locator("[data-testid=custom-field][data-name=draft_probs]").fill("[0.5,")
    p.get_by_test_id("custom-run").click()
    p.wait_for_function(
        "() => document.querySelector('[data-testid=custom-problem]')"
        "?.textContent.startsWith('draft_probs: ')"
    )
    # A number beyond a float is named before anything is sent (JSON would send it as null).
    field.fill("[1e400, 0.5]")
    p.get_by_test_id("custom-run").click()
    p.wait_for_function(
        "() => document.querySelector('[data-testid=custom-problem]')"
        "?.textContent.includes('a number too large for a float')"
    )
