"""Random cases for Submit (trusted): an acceptance rate, a draft cost and a longest draft.

Draws whose two best draft lengths are within a relative 1e-6 of each other are thrown away:
there, summing the series in another order could flip which length wins.
"""

from __future__ import annotations

import math
from typing import Any

NEAR_TIE = 1e-6
MAX_GAMMA = 40


def speedup(alpha: float, c: float, gamma: int) -> float:
    """Expected tokens per step over the step's cost in target passes."""
    tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
    return tokens / (gamma * c + 1)


def near_tie(alpha: float, c: float, max_gamma: int) -> bool:
    """Whether the best and second-best draft lengths are too close to grade reliably."""
    if max_gamma == 0:
        return False
    best, second = sorted((speedup(alpha, c, g) for g in range(max_gamma + 1)), reverse=True)[:2]
    return math.isclose(best, second, rel_tol=NEAR_TIE, abs_tol=0.0)


def _alpha(rng: Any) -> float:
    edge = rng.random()
    if edge < 0.08:
        return 1.0  # the closed form's 0 / 0
    if edge < 0.12:
        return 0.0
    return round(float(rng.uniform(0.3, 0.99)), 3)


def _cost(rng: Any) -> float:
    if rng.random() < 0.08:
        return 0.0  # a free draft: the longest draft allowed
    return round(10 ** float(rng.uniform(-3, 0.2)), 4)  # 0.001 .. ~1.6 target passes


def random_case(rng: Any) -> dict[str, Any]:
    """One input dict (alpha, c, max_gamma), JSON-safe, with no near-tie between lengths."""
    for _ in range(1000):
        alpha, c = _alpha(rng), _cost(rng)
        max_gamma = 0 if rng.random() < 0.05 else int(rng.integers(1, MAX_GAMMA + 1))
        if not near_tie(alpha, c, max_gamma):
            return {"alpha": alpha, "c": c, "max_gamma": max_gamma}
    raise RuntimeError("no case without a near-tie in 1000 draws")  # not seen in practice
