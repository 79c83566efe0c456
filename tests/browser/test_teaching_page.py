"""The page teaches from the report: a failing row's tied hint, and the distribution chart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browser.test_page import open_exercise, run_and_wait, set_code

REPO = Path(__file__).resolve().parents[2]
RESAMPLE = "speculative-decoding-resample"
NOT_NORMALISED = REPO / "tests" / "solutions" / RESAMPLE / "wrong_residual_not_normalised.py"


def test_a_failing_row_offers_its_tied_hint_and_counts_it_revealed(page: Any, server: Any) -> None:
    detail = server.api(f"/api/exercises/{RESAMPLE}")
    p = open_exercise(page, RESAMPLE)
    # Fails the tie case (its hint is the accept test's, number 1) first of all.
    set_code(p, NOT_NORMALISED.read_text())
    run_and_wait(p)
    failing = p.locator("[data-testid=test-result][data-status=fail]").first
    button = failing.get_by_test_id("tied-hint-button")
    assert button.inner_text().startswith("Show hint ")
    tied = int(button.inner_text().split()[2].rstrip(","))
    assert 1 <= tied <= detail["hint_count"]
    assert p.get_by_test_id("hint").count() == 0
    button.click()
    text = failing.get_by_test_id("tied-hint-text")
    text.wait_for()
    hint = server.api(f"/api/exercises/{RESAMPLE}/hints/{tied}")
    assert hint["text"].split()[0] in text.inner_text()
    # Revealed: the hint panel shows it, and its count says so.
    panel = p.get_by_test_id("hint")
    assert panel.count() == 1
    assert f"Hint {tied} of {detail['hint_count']}" in panel.nth(0).inner_text()
    assert p.locator("#hint-count").inner_text() == f"1 of {detail['hint_count']} shown"
    # The next "Show a hint" gives the first one not yet revealed, and the row keeps it shown.
    p.get_by_test_id("hint-button").click()
    p.wait_for_selector("[data-testid=hint] >> nth=1")
    shown = [panel.nth(i).inner_text().split("\n")[0] for i in range(panel.count())]
    first_missing = 1 if tied != 1 else 2
    assert sorted(shown) == sorted(
        [
            f"Hint {tied} of {detail['hint_count']}",
            f"Hint {first_missing} of {detail['hint_count']}",
        ]
    )
    p.reload()
    p.wait_for_selector("body[data-ready='true']", state="attached")
    assert p.get_by_test_id("hint").count() == 2  # remembered across a reload, gaps and all


def test_passing_rows_offer_no_hint(page: Any, server: Any) -> None:
    p = open_exercise(page, RESAMPLE)
    set_code(p, (REPO / "exercises" / RESAMPLE / "solution.py").read_text())
    run_and_wait(p)
    assert p.get_by_test_id("tied-hint-button").count() == 0


def test_the_chart_has_one_bar_pair_per_token(page: Any, server: Any) -> None:
    # The chart of a real distribution check (the judge's own numbers for a wrong step).
    from app.catalog import Catalog
    from app.grading.judge import Judge
    from app.schemas import Group, Mode

    exercise = Catalog.load().get(RESAMPLE)
    judge = Judge.create(workers=1, queue_size=4)
    try:
        report = judge.grade(exercise, NOT_NORMALISED.read_text(), Mode.submit)
    finally:
        judge.close()
    rows = [test for test in report.tests if test.group == Group.check]
    chart = rows[0].chart  # the pair that catches an unnormalised residual: four tokens
    tokens = len(exercise.distribution.pairs[0].p[0])
    assert chart is not None and len(chart.tokens) == tokens == 4
    p = open_exercise(page, RESAMPLE)
    drawn = p.evaluate(
        """(chart) => {
            const svg = window.JudgeTeaching.chart(chart);
            document.body.append(svg);
            return {
              tag: svg.tagName,
              tokens: svg.querySelectorAll('[data-testid=chart-token]').length,
              target: [...svg.querySelectorAll('[data-testid=chart-bar-target]')]
                .map((r) => Number(r.getAttribute('height'))),
              observed: [...svg.querySelectorAll('[data-testid=chart-bar-observed]')]
                .map((r) => Number(r.getAttribute('height'))),
              verdict: svg.querySelector('[data-testid=chart-verdict]').textContent,
            };
        }""",
        json.loads(chart.model_dump_json()),
    )
    assert drawn["tag"] == "svg"
    assert drawn["tokens"] == len(drawn["target"]) == len(drawn["observed"]) == tokens
    # Bar heights follow the numbers: the tallest target bar is p's largest entry.
    assert drawn["target"].index(max(drawn["target"])) == chart.target.index(max(chart.target))
    assert drawn["observed"].index(max(drawn["observed"])) == chart.observed.index(
        max(chart.observed)
    )
    assert drawn["verdict"].endswith(f"{chart.trials} steps")
    assert " > " in drawn["verdict"]  # failed: the statistic above the threshold
    malformed = p.evaluate("() => window.JudgeTeaching.chart({tokens: [0], target: []})")
    assert malformed is None


def test_the_charts_words_and_sign_are_the_checks_own(page: Any, server: Any) -> None:
    # A sampler check counts tokens per call against an exact law; a row that failed for a token
    # of probability 0 can have its chi-square inside the threshold, and the caption says so.
    from app.schemas import Chart

    chart = Chart(
        tokens=[0, 1],
        target=[0.5, 0.5],
        observed=[0.45, 0.55],
        trials=400,
        statistic=4.0,
        threshold=35.0,
        passed=False,
        counted="token returned",
        unit="calls",
        law="exact law",
    )
    p = open_exercise(page, RESAMPLE)
    drawn = p.evaluate(
        """(chart) => {
            const svg = window.JudgeTeaching.chart(chart);
            return [svg.getAttribute('aria-label'), svg.querySelector('title').textContent,
                    svg.querySelector('[data-testid=chart-verdict]').textContent];
        }""",
        json.loads(chart.model_dump_json()),
    )
    assert drawn == [
        "Each token returned over 400 calls: the exact law beside your frequency, per token",
        "The exact law against your frequencies (400 calls)",
        "\u03c7\u00b2 = 4.00 \u2264 35.00 \u00b7 400 calls",
    ]


def test_submit_on_resample_draws_the_distribution_chart(page: Any, server: Any) -> None:
    exercise = server.api(f"/api/exercises/{RESAMPLE}")
    p = open_exercise(page, RESAMPLE)
    set_code(p, NOT_NORMALISED.read_text())
    p.get_by_test_id("submit").click()
    p.wait_for_function(
        "() => { const s = document.querySelector('[data-testid=summary]');"
        " return s && !s.classList.contains('summary--running')"
        " && !s.classList.contains('summary--idle'); }"
    )
    checks = p.locator("[data-testid=test-result][data-group=check]")
    assert checks.count() == 3  # a row per pair
    assert p.locator("[data-testid=test-group][data-group=check]").count() == 1
    tokens = []
    for i in range(checks.count()):
        row = checks.nth(i)
        if row.get_attribute("open") is None:
            row.locator("summary").click()
        chart = row.get_by_test_id("distribution-chart")
        assert chart.count() == 1
        groups = chart.get_by_test_id("chart-token")
        tokens.append(groups.count())
        for j in range(groups.count()):  # one bar pair per token
            assert groups.nth(j).get_by_test_id("chart-bar-target").count() == 1
            assert groups.nth(j).get_by_test_id("chart-bar-observed").count() == 1
    from app.catalog import Catalog

    check = Catalog.load().get(RESAMPLE).distribution  # type: ignore[union-attr]
    assert tokens == [len(pair.p[0]) for pair in check.pairs] == [4, 4, 3]  # each vocabulary
    first = checks.nth(0)
    assert first.get_attribute("data-status") == "fail"
    assert "most over-sampled" in first.inner_text()
    assert exercise["hint_count"] >= 1
    page.screenshot("distribution-chart")


def test_on_a_phone_the_chart_fits_its_box_with_legible_words(make_page: Any) -> None:
    # Eight tokens, as the sampler checks have: each label in view, none shrunk below 10 px.
    eight = [0.3, 0.2, 0.15, 0.12, 0.1, 0.07, 0.04, 0.02]
    chart = {"tokens": list(range(8)), "target": eight, "observed": eight[::-1], "trials": 400,
             "statistic": 3.0, "threshold": 36.8, "passed": True}  # fmt: skip
    p = open_exercise(make_page(375, 700), RESAMPLE)
    drawn = p.evaluate(
        """(chart) => {
            const box = document.createElement('div');
            box.style.width = '292px';  // the field's width on a 375 px screen
            box.className = 'field--chart';
            box.append(window.JudgeTeaching.chart(chart));
            document.querySelector('main').append(box);
            const right = box.getBoundingClientRect().right;
            const labels = [...box.querySelectorAll('[data-testid=chart-token] text')];
            return {
              inView: labels.every((t) => t.getBoundingClientRect().right <= right + 0.5),
              smallest: Math.min(...labels.map((t) => t.getBoundingClientRect().height)),
              scrolls: box.scrollWidth > box.clientWidth,
            };
        }""",
        chart,
    )
    assert drawn["inView"] and not drawn["scrolls"], drawn
    assert drawn["smallest"] >= 10, drawn
