"""Two learners in two browsers (two Playwright contexts: two cookie jars) against the real
judge: each lists and restores only their own submissions, and the home page marks each
exercise solved, attempted or new for the learner who looks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_page import open_exercise, set_code, solution

REPO = Path(__file__).resolve().parents[2]
EXERCISES = sorted(
    p.name for p in (REPO / "exercises").iterdir() if (p / "exercise.toml").is_file()
)
ITEMS = "[data-testid=my-submission]"


def starter(exercise_id: str) -> str:
    return (REPO / "exercises" / exercise_id / "starter.py").read_text(encoding="utf-8")


def grade_and_wait(page: Any, button: str, listed: int) -> None:
    """Press Run or Submit and wait until the report is shown and the list holds ``listed``."""
    page.get_by_test_id(button).click()
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=summary]');"
        " return s && !s.classList.contains('summary--running')"
        " && !s.classList.contains('summary--idle'); }"
    )
    page.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length === {listed}")


def listed(page: Any) -> list[str]:
    return [text.strip() for text in page.locator(ITEMS).all_inner_texts()]


def code_of(page: Any) -> str:
    return str(page.evaluate("() => window.JudgePage.editor.getCode()"))


def test_two_learners_each_see_and_restore_only_their_own(make_page: Any) -> None:
    exercise = EXERCISES[0]
    alice_tab, bob_tab = make_page(), make_page()
    alice = open_exercise(alice_tab, exercise)
    alice.wait_for_selector("[data-testid=my-submissions]:not([hidden])")
    alice.wait_for_function(
        "() => document.querySelector('[data-testid=my-submissions-status]')"
        ".textContent.startsWith('None yet')"
    )
    set_code(alice, starter(exercise))  # the starter fails: a wrong Run
    grade_and_wait(alice, "run", 1)
    set_code(alice, solution(exercise))
    grade_and_wait(alice, "submit", 2)
    rows = listed(alice)
    assert rows[0].lower().startswith("accepted") and "Submit" in rows[0]  # newest first
    assert "Run" in rows[1] and not rows[1].lower().startswith("accepted")

    bob_tab.allowed_errors.append("status of 404")  # his probes of Alice's ids, below
    bob = open_exercise(bob_tab, exercise)
    bob.wait_for_function(
        "() => document.querySelector('[data-testid=my-submissions-status]')"
        ".textContent.startsWith('None yet')"
    )
    assert listed(bob) == []
    set_code(bob, "# bob's own try\n" + starter(exercise))
    grade_and_wait(bob, "run", 1)

    # Alice's ids are not Bob's: the API answers him 404, as for an id that does not exist.
    alice_ids = alice.locator(ITEMS).evaluate_all(
        "items => items.map(i => i.getAttribute('data-submission-id'))"
    )
    answers = bob.evaluate(
        "async (ids) => Promise.all(ids.concat(['999999999']).map(async (id) => {"
        " const r = await fetch('/api/me/submissions/' + id); return [r.status, await r.text()];"
        "}))",
        alice_ids,
    )
    assert len({tuple(a) for a in answers}) == 1 and answers[0][0] == 404
    alice.reload()
    alice.wait_for_function(f"() => document.querySelectorAll('{ITEMS}').length === 2")
    assert "bob" not in " ".join(listed(alice))

    # Restoring the older Run over code that is in no submission asks first.
    set_code(alice, "# unsaved work\n")
    alice.locator(ITEMS).nth(1).get_by_test_id("restore-submission").click()
    dialog = alice.get_by_test_id("restore-dialog")
    dialog.wait_for(state="visible")
    alice.get_by_test_id("restore-cancel").click()
    assert code_of(alice) == "# unsaved work\n"
    alice.locator(ITEMS).nth(1).get_by_test_id("restore-submission").click()
    alice.get_by_test_id("restore-confirm").click()
    alice.wait_for_function("() => !document.querySelector('[data-testid=restore-dialog]').open")
    assert code_of(alice) == starter(exercise)
    # Code that is a submission's is replaced without a question.
    alice.locator(ITEMS).nth(0).get_by_test_id("restore-submission").click()
    alice.wait_for_function(f"() => window.JudgePage.editor.getCode() === {solution(exercise)!r}")
    assert not dialog.is_visible()
    # The restored code is what a reload brings back (saved in the browser as usual).
    alice.reload()
    alice.wait_for_selector("body[data-ready='true']", state="attached")
    assert code_of(alice) == solution(exercise)
    alice_tab.screenshot("learner-submissions")

    # The home page: solved for Alice, attempted for Bob, new for everything else.
    for tab, mark in ((alice_tab, "solved"), (bob_tab, "attempted")):
        tab.goto("/")
        home = tab.page
        card = home.locator(f"[data-testid=exercise-card]:has([data-exercise-id='{exercise}'])")
        card.locator(f"[data-progress='{mark}']").wait_for()
        others = home.locator("[data-testid=progress-mark][data-progress='new']")
        assert others.count() == len(EXERCISES) - 1
    alice_tab.screenshot("home-progress")
