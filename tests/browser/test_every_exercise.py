"""Every exercise folder found, opened in the real page; the home page's sections and marks.

No list of ids: a new folder under exercises/ is opened here as soon as it exists. Each page
must show its title and statement with every formula typeset (no KaTeX error), an editor with
the starter, its cases, and no console error; the home page must list the sections in their
order with the exercises in theirs, and mark what this browser graded.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.catalog import EXERCISES_DIR, Catalog
from tests.browser.test_page import editor_text, open_exercise, run_and_wait

FOLDERS = sorted(p.name for p in EXERCISES_DIR.iterdir() if (p / "exercise.toml").is_file())

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("exercise_id", FOLDERS)
def test_every_exercise_page_opens_with_its_math_typeset(
    page: Any, server: Any, exercise_id: str
) -> None:
    p = open_exercise(page, exercise_id)
    detail = server.api(f"/api/exercises/{exercise_id}")
    assert p.get_by_test_id("title").inner_text() == detail["title"]
    statement = p.get_by_test_id("statement")
    assert statement.inner_text().strip()
    assert p.locator("[data-testid=statement] .katex-error").count() == 0
    if "$" in detail["statement"]:
        assert p.locator("[data-testid=statement] .katex").count() > 0
    # Every formula was typeset: no dollar is left in the text outside the math and the code
    # (an inline formula ending in an escape, $N = \\{3, 1\\}$, was once shown raw).
    stray = p.evaluate(
        "() => { const s = document.querySelector('[data-testid=statement]').cloneNode(true);"
        " s.querySelectorAll('.katex, code, pre').forEach(e => e.remove());"
        " return s.textContent.includes('$'); }"
    )
    assert not stray, "a formula was left as text"
    assert p.get_by_test_id("test-pending").count() == len(detail["tests"])
    assert editor_text(p).strip() == detail["starter_code"].strip()
    page.screenshot(f"exercise-{exercise_id}")


def _mark_becomes(watched: Any, exercise_id: str, state: str) -> Any:
    """The home page's mark of one exercise, reloaded until it says ``state`` (the history is
    written beside grading, a moment after the report)."""
    p = watched.page
    mark = p.locator(
        f"[data-testid=exercise-card]:has([data-exercise-id='{exercise_id}']) "
        "[data-testid=progress-mark]"
    )
    deadline = time.monotonic() + 15
    while True:
        watched.goto("/")
        p.wait_for_selector("[data-testid=progress-mark]")
        if mark.get_attribute("data-progress") == state or time.monotonic() > deadline:
            return mark
        time.sleep(0.3)


def test_home_lists_sections_in_order_and_marks_what_this_browser_graded(
    page: Any, server: Any
) -> None:
    catalog = Catalog.load()
    first = next(iter(catalog))
    sections = server.api("/api/sections")
    assert [e for s in sections for e in s["exercises"]] == [e.id for e in catalog]
    page.goto("/")
    p = page.page
    p.wait_for_selector("[data-testid=exercise-card]")
    headings = p.locator("[data-testid=exercise-section] h2").all_inner_texts()
    assert headings == [s["name"] for s in sections]
    for index, section in enumerate(sections):
        links = (
            p.locator("[data-testid=exercise-section]").nth(index).get_by_test_id("exercise-link")
        )
        assert [links.nth(k).get_attribute("data-exercise-id") for k in range(links.count())] == (
            section["exercises"]
        )
    p.wait_for_selector("[data-testid=progress-mark]")
    marks = p.get_by_test_id("progress-mark")
    assert {marks.nth(k).get_attribute("data-progress") for k in range(marks.count())} == {"new"}

    # A Run of the starter (wrong) makes it attempted; an accepted Submit makes it solved.
    q = open_exercise(page, first.id)
    run_and_wait(q)
    mark = _mark_becomes(page, first.id, "attempted")
    assert mark.get_attribute("data-progress") == "attempted"
    assert mark.inner_text() == "Attempted"
    q = open_exercise(page, first.id)
    q.evaluate("code => window.JudgePage.editor.setCode(code)", first.solution_code)
    q.get_by_test_id("submit").click()
    q.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=summary]');"
        " return s && /accepted/i.test(s.innerText); }",
        timeout=60_000,
    )
    mark = _mark_becomes(page, first.id, "solved")
    assert mark.get_attribute("data-progress") == "solved"
    others = [e.id for e in catalog if e.id != first.id]
    for other in others:
        badge = p.locator(f"[data-testid=exercise-card]:has([data-exercise-id='{other}']) "
                          "[data-testid=progress-mark]")  # fmt: skip
        assert badge.get_attribute("data-progress") == "new"
