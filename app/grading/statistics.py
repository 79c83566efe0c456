"""The statistics of the distribution check, in plain Python: chi-square tails and thresholds.

No scipy here: the upper tail of the chi-square law is the regularized upper incomplete gamma
function Q(k/2, x/2), computed by its power series below x < s + 1 and by its continued fraction
above (both converge fast there), and a threshold is found by bisection on that tail.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

_EPS = 1e-15
_TINY = 1e-300


def _lower_series(s: float, x: float) -> float:
    """P(s, x), the regularized lower incomplete gamma, by its power series (x < s + 1)."""
    term = total = 1.0 / s
    n = s
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * _EPS:
            break
    return total * math.exp(-x + s * math.log(x) - math.lgamma(s))


def _upper_fraction(s: float, x: float) -> float:
    """Q(s, x) by its continued fraction (modified Lentz), good for x >= s + 1."""
    b = x + 1.0 - s
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - s)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            break
    return h * math.exp(-x + s * math.log(x) - math.lgamma(s))


def chi2_tail(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with ``df`` degrees of freedom."""
    if statistic <= 0:
        return 1.0
    s, x = df / 2.0, statistic / 2.0
    if x < s + 1.0:
        return 1.0 - _lower_series(s, x)
    return _upper_fraction(s, x)


def chi2_cdf(statistic: float, df: int) -> float:
    """P(X <= statistic) for X chi-square(df), accurate where it is tiny (a power's miss)."""
    if statistic <= 0:
        return 0.0
    s, x = df / 2.0, statistic / 2.0
    if x < s + 1.0:
        return _lower_series(s, x)
    return 1.0 - _upper_fraction(s, x)


def noncentral_chi2_cdf(statistic: float, df: int, noncentrality: float) -> float:
    """P(X <= statistic) for X noncentral chi-square(df, noncentrality): the chance that a
    step wrong by that much passes a threshold (the check's miss rate at those trials).

    The law is a Poisson(noncentrality / 2) mixture of central chi-squares of df + 2j degrees
    of freedom; the sum runs over the Poisson's mass, from its mode outwards, to 1e-300.
    """
    if noncentrality <= 0:
        return chi2_cdf(statistic, df)
    half = noncentrality / 2.0
    mode = int(half)

    def weight(j: int) -> float:
        return math.exp(-half + j * math.log(half) - math.lgamma(j + 1.0))

    total = 0.0
    for direction in (range(mode, -1, -1), itertools.count(mode + 1)):
        for j in direction:
            w = weight(j)
            total += w * chi2_cdf(statistic, df + 2 * j)
            if w < 1e-300 or (j > mode and w < 1e-17 * max(total, 1e-300)):
                break
    return min(1.0, total)


@functools.lru_cache(maxsize=256)
def chi2_threshold(rate: float, df: int) -> float:
    """The statistic a chi-square(df) variable exceeds with probability ``rate``.

    Remembered: every Submit asks for the same few, and each is a bisection of 700 tail sums."""
    low, high = 0.0, max(1.0, float(df))
    while chi2_tail(high, df) > rate:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if chi2_tail(middle, df) > rate:
            low = middle
        else:
            high = middle
        if high - low < 1e-9 * high:
            break
    return high


def pooled_bins(expected: Sequence[float], minimum: float) -> list[list[int]]:
    """Indices grouped so every group's expected count is at least ``minimum``.

    Bins below it are pooled into one; a pool still short of it joins the smallest full bin.
    Bins of expected count 0 are left out (the caller treats a count there apart).
    """
    groups = [[i] for i, e in enumerate(expected) if e >= minimum]
    pool = [i for i, e in enumerate(expected) if 0 < e < minimum]
    if pool:
        if sum(expected[i] for i in pool) >= minimum or not groups:
            groups.append(pool)
        else:
            smallest = min(groups, key=lambda group: sum(expected[i] for i in group))
            smallest.extend(pool)
    return groups


def chi2_statistic(
    observed: Sequence[float], expected: Sequence[float], minimum: float
) -> tuple[float, int]:
    """Pearson's statistic over pooled bins and its degrees of freedom (bins - 1)."""
    groups = pooled_bins(expected, minimum)
    statistic = 0.0
    for group in groups:
        wanted = sum(expected[i] for i in group)
        seen = sum(observed[i] for i in group)
        statistic += (seen - wanted) ** 2 / wanted
    return statistic, max(1, len(groups) - 1)


def bernstein_margin(n: int, variance: float, spread: float, rate: float) -> float:
    """t with P(|mean of n draws - mu| >= t) <= rate, by Bernstein's inequality.

    For i.i.d. draws within ``spread`` of their mean: P(|X̄ - mu| >= t) <= 2 exp(-n t² /
    (2 variance + 2 spread t / 3)); solving the quadratic for the t where that equals rate.
    """
    log_term = math.log(2.0 / rate)
    linear = 2.0 * spread * log_term / 3.0
    return (linear + math.sqrt(linear * linear + 8.0 * n * variance * log_term)) / (2.0 * n)
