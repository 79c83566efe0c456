"""The judge's pages in a real browser, against the real app, sandbox and exercises.

Every test also checks (in the `make_page` fixture's teardown) that the page logged no console
error and no uncaught exception, and that every request it made went to the judge's own origin.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
EXERCISES = (
    "speculative-decoding-verify",
    "speculative-decoding-resample",
    "speculative-decoding-choose-gamma",
)
# Wrong but harmless answers: each fails at least one stored case.
WRONG = {
    "speculative-decoding-verify": (
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    return list(draft_tokens), len(draft_tokens)\n"
    ),
    "speculative-decoding-resample": (
        "def speculative_step(p, q, draft, rng):\n    return list(draft)\n"
    ),
    "speculative-decoding-choose-gamma": (
        "def choose_gamma(alpha, c, max_gamma):\n    return min(8, max_gamma), 3.0\n"
    ),
}


def solution(exercise_id: str) -> str:
    return (REPO / "exercises" / exercise_id / "solution.py").read_text(encoding="utf-8")


def open_exercise(watched: Any, exercise_id: str) -> Any:
    watched.goto(f"/exercises/{exercise_id}")
    page = watched.page
    page.wait_for_selector("body[data-ready='true']", state="attached")
    page.wait_for_selector("[data-testid=editor] .cm-content")
    return page


def editor_text(page: Any) -> str:
    return page.evaluate("() => window.JudgePage.editor.getCode()")


def set_code(page: Any, code: str) -> None:
    """Replace the editor's text the way a learner would: select all, then paste-like insert."""
    page.locator("[data-testid=editor] .cm-content").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(code)
    assert editor_text(page).strip() == code.strip()


def run_and_wait(page: Any) -> Any:
    summary = page.get_by_test_id("summary")
    page.get_by_test_id("run").click()
    page.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=summary]');"
        " return s && !s.classList.contains('summary--running')"
        " && !s.classList.contains('summary--idle'); }"
    )
    return summary


def refuse_grades(page: Any, status: int, retry_after: int, detail: str) -> None:
    """Answer the page's grade requests as a busy judge would, in the browser."""
    page.route(
        "**/submissions",
        lambda route: route.fulfill(
            status=status,
            headers={"Retry-After": str(retry_after)},
            content_type="application/json",
            body=json.dumps({"detail": detail}),
        ),
    )


def test_home_lists_both_exercises_and_links_to_them(page: Any, server: Any) -> None:
    page.goto("/")
    p = page.page
    p.wait_for_selector("[data-testid=exercise-card]")
    assert p.title().startswith("Exercises")
    listed = server.api("/api/exercises")
    links = p.get_by_test_id("exercise-link")
    assert links.count() == len(listed)
    for exercise_id in EXERCISES:
        link = p.locator(f"[data-testid=exercise-link][data-exercise-id='{exercise_id}']")
        assert link.get_attribute("href") == f"/exercises/{exercise_id}"
    # Landmarks and a difficulty on each card.
    assert p.locator("header").count() == 1 and p.locator("main").count() == 1
    assert p.locator("nav").count() >= 1
    # The difficulties line up at the cards' right, whatever the titles' lengths.
    edges = p.evaluate(
        "() => [...document.querySelectorAll('.badge--difficulty')]"
        ".map((b) => Math.round(b.getBoundingClientRect().right))"
    )
    assert len(edges) == len(listed) and len(set(edges)) == 1, edges
    page.screenshot("home")

    for exercise_id in EXERCISES:
        page.goto("/")
        p.locator(f"[data-testid=exercise-link][data-exercise-id='{exercise_id}']").click()
        p.wait_for_url(f"**/exercises/{exercise_id}")
        p.wait_for_selector("body[data-ready='true']", state="attached")
        detail = server.api(f"/api/exercises/{exercise_id}")
        assert p.get_by_test_id("title").inner_text() == detail["title"]


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_exercise_page_renders_statement_editor_and_theory(
    page: Any, server: Any, exercise_id: str
) -> None:
    p = open_exercise(page, exercise_id)
    detail = server.api(f"/api/exercises/{exercise_id}")
    # Starter code in the editor, with line numbers and Python highlighting.
    assert editor_text(p).strip() == detail["starter_code"].strip()
    assert p.locator("[data-testid=editor] .cm-lineNumbers").count() == 1
    assert p.locator("[data-testid=editor] .cm-content span[class]").count() > 0
    # Before any run: every case listed by name as not run yet.
    pending = p.get_by_test_id("test-pending")
    assert pending.count() == len(detail["tests"])
    for row, test in zip(pending.all(), detail["tests"], strict=True):
        assert test["name"] in row.inner_text()
        assert "not run yet" in row.inner_text()
    # The statement: Markdown rendered, math typeset by KaTeX without errors.
    statement = p.get_by_test_id("statement")
    assert statement.locator("p").count() > 0
    assert statement.locator(".katex").count() > 0
    assert p.locator(".katex-error").count() == 0
    # The related variant is linked.
    for other in detail["related"]:
        assert p.locator(f"[data-testid=related-link][href='/exercises/{other}']").count() == 1
    # The theory section: KaTeX output, the exactness table computed to "yes" on each token,
    # and the SVG plot with four series.
    assert p.locator("[data-testid=theory] .katex").count() > 3
    rows = p.get_by_test_id("theory-check-row")
    assert rows.count() == 3
    for row in rows.all():
        assert "yes" in row.inner_text()
    assert p.locator("[data-testid=theory-plot] .plot__series").count() == 4
    assert p.locator("[data-testid=theory-plot] .plot__legend text").count() == 4
    page.screenshot(f"{exercise_id}-start")


@pytest.mark.parametrize("exercise_id", EXERCISES)
def test_correct_solution_is_accepted_and_wrong_one_shows_the_failing_case(
    page: Any, exercise_id: str
) -> None:
    p = open_exercise(page, exercise_id)

    set_code(p, solution(exercise_id))
    summary = run_and_wait(p)
    assert "accepted" in summary.inner_text().lower()
    assert "6/6" in summary.inner_text()
    # The whole line as a learner reads it (a Run names no seed, and nothing stands in for it).
    words = summary.inner_text().split()
    assert words[:4] == ["✓", "Accepted", "6/6", "tests"] and words[-1] in ("ms", "s"), words
    assert "null" not in summary.inner_text() and "undefined" not in summary.inner_text()
    results = p.get_by_test_id("test-result")
    assert results.count() == 6
    assert [r.get_attribute("data-status") for r in results.all()] == ["pass"] * 6
    for row in results.all():
        assert "passed" in row.locator("summary").inner_text()  # not colour alone
        assert row.get_attribute("open") is None  # passing rows collapsed
    page.screenshot(f"{exercise_id}-accepted")

    set_code(p, WRONG[exercise_id])
    summary = run_and_wait(p)
    assert "accepted" not in summary.inner_text().lower()
    assert results.count() == 6
    failing = p.locator("[data-testid=test-result][data-status=fail]")
    assert failing.count() >= 1
    first = failing.first
    assert first.get_attribute("open") is not None  # failing rows open
    message = first.get_by_test_id("test-message")
    assert message.is_visible()
    assert len(message.inner_text().strip()) > 10
    assert "failed" in first.locator("summary").inner_text()
    assert first.get_by_test_id("test-expected").is_visible()
    assert first.get_by_test_id("test-actual").is_visible()
    shown = first.get_by_test_id("test-input").inner_text()
    assert "null" not in shown and "true" not in shown  # Python's spelling: None, True
    if exercise_id == "speculative-decoding-verify":
        assert "target_dist_next = None" in shown
    elif exercise_id == "speculative-decoding-choose-gamma":
        assert "alpha = 0.8\nc = 0.05\nmax_gamma = 16" in shown, shown
        # the float is off: the message says by how much, and what the tolerance is
        assert "speedup: you returned 3.0, the reference 3.0920795428571433 (off by 9.2e-2" in (
            message.inner_text()
        )
        assert "the tolerance is 1e-9 relative" in message.inner_text()
    else:  # the generator argument is described, not shown as its JSON spec
        assert "rng = a scripted generator whose draws are" in shown or (
            "rng = np.random.default_rng(" in shown
        ), shown
    page.screenshot(f"{exercise_id}-wrong")


def test_values_that_print_alike_but_differ_in_type_say_so(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    golden = REPO / "tests" / "solutions" / "speculative-decoding-verify"
    set_code(p, (golden / "wrong_list_instead_of_tuple.py").read_text())
    run_and_wait(p)
    failing = p.locator("[data-testid=test-result][data-status=fail]").first
    expected = failing.get_by_test_id("test-expected").inner_text()
    assert expected == failing.get_by_test_id("test-actual").inner_text()
    assert "tuple" in failing.inner_text()  # the message names the difference
    assert failing.get_by_test_id("looks-alike").is_visible()
    # A row whose values differ in print has no such note.
    set_code(p, WRONG["speculative-decoding-verify"])
    run_and_wait(p)
    assert p.get_by_test_id("looks-alike").count() == 0


def test_compile_error_shows_the_message_with_its_line(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    set_code(p, "def speculative_decode(draft_probs,:\n    pass\n")
    summary = run_and_wait(p)
    assert "compile error" in summary.inner_text().lower()
    message = p.get_by_test_id("report-message")
    assert message.is_visible()
    assert re.search(r"line \d", message.inner_text())


def test_the_blamed_line_is_marked_and_each_mention_of_it_jumps_there(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    set_code(
        p,
        "def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):\n"
        "    accepted = []\n"
        "    ratio = target_probs[0] / 0\n"
        "    return accepted, 0\n",
    )
    run_and_wait(p)
    marked = p.get_by_test_id("error-line")
    assert marked.count() == 1
    assert marked.inner_text() == "    ratio = target_probs[0] / 0"
    first_error = p.locator("[data-testid=test-result][data-status=error]").first
    links = first_error.get_by_test_id("line-link")
    assert links.count() >= 1  # the message, and the traceback under it
    assert links.first.inner_text() == "line 3"
    assert "ZeroDivisionError (line 3)" in first_error.get_by_test_id("test-message").inner_text()
    p.locator(".cm-scroller").evaluate("scroller => { scroller.scrollTop = 0; }")
    links.first.click()
    assert p.evaluate("() => document.activeElement.classList.contains('cm-content')")
    assert p.locator(".cm-activeLine").inner_text() == "    ratio = target_probs[0] / 0"

    set_code(p, "def speculative_decode(draft_probs,\n    target_probs:\n    pass\n")
    run_and_wait(p)
    message = p.get_by_test_id("report-message")
    assert message.get_by_test_id("line-link").count() >= 1
    number = int(message.get_by_test_id("line-link").first.get_attribute("data-line"))
    assert p.get_by_test_id("error-line").inner_text() == editor_text(p).split("\n")[number - 1]

    set_code(p, solution("speculative-decoding-verify"))
    run_and_wait(p)
    assert p.get_by_test_id("error-line").count() == 0


def test_run_shows_a_busy_state_then_the_report(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    held: list[Any] = []
    # Hold the request until the busy state has been checked.
    p.route("**/submissions", lambda route: held.append(route))
    run = p.get_by_test_id("run")
    run.click()
    p.wait_for_function("() => document.querySelector('[data-testid=run]').disabled")
    assert run.get_attribute("aria-busy") == "true"
    assert "Running" in run.inner_text()
    assert "running" in p.get_by_test_id("summary").inner_text().lower()
    p.wait_for_timeout(50)
    assert len(held) == 1
    held[0].continue_()
    p.wait_for_selector("[data-testid=test-result]")
    assert run.is_enabled()
    assert run.get_attribute("aria-busy") == "false"
    assert run.locator(".button__label").inner_text() == "Run tests"


def test_a_judge_that_stops_answering_is_given_up_on_and_the_buttons_come_back(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    p.clock.install()  # the page's timers run on a clock this test moves
    held: list[Any] = []
    p.route("**/submissions", lambda route: held.append(route))  # never answered
    run = p.get_by_test_id("run")
    run.click()
    p.wait_for_function("() => document.querySelector('[data-testid=run]').disabled")
    p.clock.run_for(29_000)
    assert run.is_disabled() and len(held) == 1  # still waiting, as it should under load
    p.clock.run_for(2_000)
    p.wait_for_function("() => !document.querySelector('[data-testid=run]').disabled")
    summary = p.get_by_test_id("summary").inner_text()
    assert "The judge did not answer" in summary and "No answer in 30 s" in summary
    assert p.get_by_test_id("submit").is_enabled()


def test_http_errors_show_their_detail(page: Any, server: Any) -> None:
    # Chromium logs every 4xx/5xx answer as a console error: expected here.
    page.allowed_errors.extend(["status of 413", "status of 503"])
    p = open_exercise(page, "speculative-decoding-verify")
    # A real 413 from the judge: code over the size cap.
    # (Set through the page's editor API: typing 80 KB into the editor would be slow.)
    p.evaluate("code => window.JudgePage.editor.setCode(code)", "# padding\n" * 8000)
    summary = run_and_wait(p)
    assert "too large" in summary.inner_text().lower()
    assert len(p.get_by_test_id("error-detail").inner_text().strip()) > 5
    # A saturated judge (simulated in the browser): 503 with Retry-After.
    refuse_grades(p, 503, 3, "All graders are busy.")
    summary = run_and_wait(p)
    text = summary.inner_text()
    assert "busy" in text.lower() and "All graders are busy." in text and "3 s" in text
    assert p.get_by_test_id("run").is_enabled()


def test_an_ungraded_run_leaves_no_earlier_rows_standing(page: Any) -> None:
    # Code that was not graded (the judge down or busy) must not sit above the last one's rows.
    page.allowed_errors.extend(["status of 429", "net::ERR_FAILED"])
    p = open_exercise(page, "speculative-decoding-verify")
    set_code(p, solution("speculative-decoding-verify"))
    run_and_wait(p)
    assert p.locator("[data-testid=test-result]").count() == 6
    refuse_grades(p, 429, 1, "You already have 2 grades running; try again in 1 s.")
    summary = run_and_wait(p)
    assert "Your other grades are still running" in summary.inner_text()
    assert p.locator("[data-testid=test-result]").count() == 0
    assert p.locator("[data-testid=test-pending]").count() == 6
    p.unroute("**/submissions")
    p.route("**/submissions", lambda route: route.abort())
    summary = run_and_wait(p)
    assert "Could not reach the judge" in summary.inner_text()
    assert p.locator("[data-testid=test-result]").count() == 0


def test_hints_code_kept_across_reload_and_reset(page: Any, server: Any) -> None:
    exercise_id = "speculative-decoding-verify"
    detail = server.api(f"/api/exercises/{exercise_id}")
    total = detail["hint_count"]
    assert total >= 2
    p = open_exercise(page, exercise_id)

    hint_button = p.get_by_test_id("hint-button")
    assert hint_button.inner_text() == "Show a hint"
    hint_button.click()
    p.wait_for_selector("[data-testid=hint] >> nth=0")
    hint_button.click()
    p.wait_for_selector("[data-testid=hint] >> nth=1")
    hints = p.get_by_test_id("hint")
    assert hints.count() == 2
    assert f"Hint 1 of {total}" in hints.nth(0).inner_text()
    assert f"Hint 2 of {total}" in hints.nth(1).inner_text()

    mine = detail["starter_code"].rstrip("\n") + "\n# my own attempt, kept across reloads\n"
    set_code(p, mine)
    p.reload()
    p.wait_for_selector("body[data-ready='true']", state="attached")
    p.wait_for_selector("[data-testid=editor] .cm-content")
    assert "# my own attempt, kept across reloads" in editor_text(p)
    assert p.get_by_test_id("hint").count() == 2  # revealed hints remembered too

    p.get_by_test_id("reset").click()
    assert editor_text(p).strip() == detail["starter_code"].strip()
    # Reset is one undoable edit.
    p.locator("[data-testid=editor] .cm-content").click()
    p.keyboard.press("ControlOrMeta+z")
    assert "# my own attempt, kept across reloads" in editor_text(p)

    # Reveal the rest: the button is disabled after the last hint.
    for n in range(3, total + 1):
        hint_button.click()
        p.wait_for_selector(f"[data-testid=hint] >> nth={n - 1}")
    assert hint_button.is_disabled()
    assert f"Hint {total} of {total}" in hints.nth(total - 1).inner_text()


def test_ctrl_enter_in_the_editor_runs(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-resample")
    before = editor_text(p)
    p.locator("[data-testid=editor] .cm-content").click()
    p.keyboard.press("ControlOrMeta+Enter")
    p.wait_for_selector("[data-testid=test-result]")
    assert p.get_by_test_id("test-result").count() == 6
    assert "wrong answer" in p.get_by_test_id("summary").inner_text().lower()
    assert editor_text(p) == before  # the shortcut inserted nothing


def test_phone_width_has_no_horizontal_scroll(make_page: Any) -> None:
    watched = make_page(width=375, height=800)
    watched.goto("/")
    watched.page.wait_for_selector("[data-testid=exercise-card]")
    overflow = "document.documentElement.scrollWidth <= window.innerWidth"
    assert watched.page.evaluate(overflow)
    for exercise_id in EXERCISES:
        p = open_exercise(watched, exercise_id)
        assert p.evaluate(overflow)
        # After a failing run (wide inputs, open rows) too; the editor spans the column.
        set_code(p, WRONG[exercise_id])
        run_and_wait(p)
        assert p.evaluate(overflow), p.evaluate("document.documentElement.scrollWidth")
        editor_width = p.get_by_test_id("editor").bounding_box()["width"]
        assert editor_width >= 375 - 60
        watched.screenshot(f"{exercise_id}-phone")


def test_keyboard_alone_reaches_the_controls_and_runs(page: Any) -> None:
    p = open_exercise(page, "speculative-decoding-verify")
    p.locator("body").click(position={"x": 5, "y": 300})
    seen: list[str] = []
    for _ in range(80):
        in_editor = p.evaluate("!!document.activeElement.closest('.cm-editor')")
        if in_editor:
            # Tab indents inside the editor; Escape then Tab moves on (documented on the page).
            seen.append("editor")
            p.keyboard.press("Escape")
        p.keyboard.press("Tab")
        testid = p.evaluate("document.activeElement.getAttribute('data-testid') || ''")
        if testid and testid not in seen:
            seen.append(testid)
        if "hint-button" in seen:
            break
    order = [name for name in seen if name in ("editor", "run", "reset", "hint-button")]
    assert order == ["editor", "run", "reset", "hint-button"], seen

    # Back to Run with Shift+Tab, check its focus is visible, press Enter: it runs.
    run = p.get_by_test_id("run")
    while p.evaluate("document.activeElement.getAttribute('data-testid')") != "run":
        p.keyboard.press("Shift+Tab")
    outline = run.evaluate("b => getComputedStyle(b).outlineStyle")
    assert outline != "none"
    p.keyboard.press("Enter")
    p.wait_for_selector("[data-testid=test-result]")
    assert p.get_by_test_id("test-result").count() == 6

    # Every button has an accessible name.
    for button in p.locator("button").all():
        assert (button.get_attribute("aria-label") or button.inner_text()).strip()


def test_unknown_exercise_says_not_found(page: Any) -> None:
    page.allowed_errors.append("404")  # Chromium logs the API's 404 as a console error
    page.goto("/exercises/no-such-exercise")
    p = page.page
    p.wait_for_selector("[data-testid=not-found]")
    assert "not found" in p.get_by_test_id("not-found").inner_text().lower()
    assert not p.locator("#exercise-layout").is_visible()
