"""The instructor's page in a real browser: the token typed once (kept for the tab in
sessionStorage), the class table, one exercise's most-failed cases drawn as a chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from browser_settings import INSTRUCTOR_TOKEN

REPO = Path(__file__).resolve().parents[2]
EXERCISES = sorted(
    p.name for p in (REPO / "exercises").iterdir() if (p / "exercise.toml").is_file()
)


def test_the_class_table_and_the_chart_of_failed_cases(page: Any, server: Any) -> None:
    exercise = EXERCISES[-1]
    starter = (REPO / "exercises" / exercise / "starter.py").read_text(encoding="utf-8")
    for n in range(3):  # three learners whose (only) attempt fails
        cookie = {"judge_learner": f"{n:032x}"}
        answer = httpx.post(
            f"{server.url}/api/exercises/{exercise}/submissions",
            json={"code": starter, "mode": "run"},
            cookies=cookie,
            timeout=60,
        )
        assert answer.status_code == 200 and answer.json()["verdict"] != "accepted"

    page.goto("/instructor")
    p = page.page
    page.allowed_errors.append("status of 401")  # the wrong token, below
    p.get_by_test_id("token-input").fill("not-the-token")
    p.get_by_test_id("token-submit").click()
    p.wait_for_function(
        "() => document.querySelector('[data-testid=class-status]').textContent"
        ".includes('not accepted')"
    )
    p.get_by_test_id("token-input").fill(INSTRUCTOR_TOKEN)
    p.get_by_test_id("token-submit").click()
    p.wait_for_selector("[data-testid=class-row]")
    assert p.get_by_test_id("class-row").count() == len(EXERCISES)
    row = p.locator(f"[data-testid=class-row]:has([data-exercise-id='{exercise}'])")
    assert int(row.locator("td").nth(0).inner_text()) >= 3  # learners

    row.get_by_test_id("class-exercise").click()
    p.wait_for_selector("[data-testid=cases-chart] svg rect.bar")
    assert p.locator("[data-testid=cases-chart] svg rect.bar").count() >= 1
    assert "wrong" in p.get_by_test_id("verdicts").inner_text().lower()
    # Today's submissions: one bar, its day named once and its count above it.
    days = p.get_by_test_id("days-chart")
    assert days.locator("rect.bar").count() == 1
    labels = days.locator("text").evaluate_all("nodes => nodes.map((n) => n.textContent)")
    assert len(labels) == 2 and labels[0].isdigit() and int(labels[0]) >= 3, labels
    page.screenshot("instructor")

    # The exercise shown is in the address: a reload shows it again, Back leaves it.
    assert p.url.endswith(f"/instructor?exercise={exercise}")

    # The token stays with the tab: a reload shows the class without asking again.
    p.reload()
    p.wait_for_selector("[data-testid=class-row]")
    assert p.get_by_test_id("token-form").is_hidden()
    p.wait_for_selector("[data-testid=cases-chart] svg rect.bar")
    p.go_back()
    p.wait_for_function("() => document.getElementById('exercise-view').hidden")
    assert p.url.endswith("/instructor")
    stored = p.evaluate("() => Object.keys(window.sessionStorage)")
    assert stored == ["judge.instructor.token"]
    assert p.evaluate("() => Object.keys(window.localStorage)") == []

    # Export: fetched with the token and handed over as a download.
    with p.expect_download() as download:
        p.get_by_test_id("export-all").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("created_at,exercise,learner,mode,verdict")
    assert "0" * 32 not in text


def test_on_a_phone_the_chart_of_failed_cases_keeps_its_words_legible(
    make_page: Any, server: Any
) -> None:
    exercise = EXERCISES[0]
    starter = (REPO / "exercises" / exercise / "starter.py").read_text(encoding="utf-8")
    answer = httpx.post(
        f"{server.url}/api/exercises/{exercise}/submissions",
        json={"code": starter, "mode": "run"},
        cookies={"judge_learner": f"{7:032x}"},
        timeout=60,
    )
    assert answer.status_code == 200
    watched = make_page(375, 700)
    watched.goto(f"/instructor?exercise={exercise}")
    p = watched.page
    p.get_by_test_id("token-input").fill(INSTRUCTOR_TOKEN)
    p.get_by_test_id("token-submit").click()
    p.wait_for_selector("[data-testid=cases-chart] svg rect.bar")
    sizes = p.evaluate(
        "() => [...document.querySelectorAll('[data-testid=cases-chart] svg text')]"
        ".map((t) => t.getBoundingClientRect().height)"
    )
    assert sizes and min(sizes) >= 10, sizes  # they read about 5 px when the wide chart shrank
    scrolls = p.evaluate("() => document.documentElement.scrollWidth > window.innerWidth")
    assert not scrolls
