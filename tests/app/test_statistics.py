"""The check's statistics against values tabulated elsewhere (scipy's, quoted, not imported)."""

from __future__ import annotations

import math

import pytest

from app.grading import statistics


@pytest.mark.parametrize(
    ("statistic", "df", "tail"),
    [
        (3.841458820694124, 1, 0.05),
        (7.814727903251178, 3, 0.05),
        (30.66484972089529, 3, 1e-6),
        (18.307038053275146, 10, 0.05),
        (0.5, 2, math.exp(-0.25)),
        (100.0, 4, 51 * math.exp(-50)),
    ],
)
def test_chi_square_tail(statistic: float, df: int, tail: float) -> None:
    assert statistics.chi2_tail(statistic, df) == pytest.approx(tail, rel=1e-6, abs=0)


def test_thresholds_invert_the_tail() -> None:
    assert statistics.chi2_threshold(0.05, 3) == pytest.approx(7.8147, rel=1e-4)
    assert statistics.chi2_threshold(1e-6, 3) == pytest.approx(30.6648, rel=1e-4)
    for df in (1, 3, 5, 9):
        threshold = statistics.chi2_threshold(1e-6 / 3, df)
        assert statistics.chi2_tail(threshold, df) == pytest.approx(1e-6 / 3, rel=1e-6, abs=0)


def test_small_expected_counts_are_pooled() -> None:
    assert statistics.pooled_bins([100, 3, 2, 50, 0], 5) == [[0], [3], [1, 2]]
    assert statistics.pooled_bins([100, 3, 1, 50], 5) == [[0], [3, 1, 2]]
    assert statistics.pooled_bins([2, 1], 5) == [[0, 1]]
    statistic, df = statistics.chi2_statistic([90, 5, 5, 50], [100, 3, 2, 45], 5)
    assert df == 2
    assert statistic == pytest.approx(100 / 100 + 25 / 45 + 25 / 5)


def test_bernstein_margin_solves_its_bound() -> None:
    n, variance, spread, rate = 1000, 1.1, 2.0, 1e-6
    t = statistics.bernstein_margin(n, variance, spread, rate)
    bound = 2 * math.exp(-n * t * t / (2 * variance + 2 * spread * t / 3))
    assert bound == pytest.approx(rate, rel=1e-9, abs=0)


@pytest.mark.parametrize(
    ("statistic", "df", "noncentrality", "cdf"),
    [  # scipy.stats.ncx2.cdf(statistic, df, noncentrality), quoted
        (37.66, 3, 125.0, 1.2162155372842887e-07),
        (37.66, 3, 90.0, 0.00025023879901435724),
        (43.2, 5, 120.0, 1.9597215963125713e-06),
        (40.0, 4, 200.0, 7.784096732854854e-16),
        (5.0, 2, 30.0, 0.000360461820153286),
        (37.66, 3, 500.0, 4.6429075378815883e-60),
    ],
)
def test_noncentral_chi_square_cdf(
    statistic: float, df: int, noncentrality: float, cdf: float
) -> None:
    assert statistics.noncentral_chi2_cdf(statistic, df, noncentrality) == pytest.approx(
        cdf, rel=1e-9, abs=0
    )


def test_without_noncentrality_it_is_the_central_law() -> None:
    for statistic, df in ((3.841458820694124, 1), (30.66484972089529, 3), (1.0, 6)):
        central = 1.0 - statistics.chi2_tail(statistic, df)
        assert statistics.noncentral_chi2_cdf(statistic, df, 0.0) == pytest.approx(central)
        assert statistics.chi2_cdf(statistic, df) == pytest.approx(central)
