"""Submit's random cases for the verify step (trusted: runs in the judge, not the sandbox)."""

import numpy as np


def _probability(rng):
    # Three decimals keep the inputs readable; zeros and exact copies reach the edge rules.
    return round(float(rng.uniform(0.01, 1.0)), 3)


def random_case(rng):
    """One input: K from 0 to 12 drafted tokens, a mix of ordinary, zero and equal probabilities."""
    k = int(rng.integers(0, 13))
    draft, target = [], []
    for _ in range(k):
        d = 0.0 if rng.random() < 0.1 else _probability(rng)
        roll = rng.random()
        if roll < 0.15:
            t = d
        elif roll < 0.25:
            t = 0.0
        else:
            t = _probability(rng)
        draft.append(d)
        target.append(t)
    tokens = [int(x) for x in rng.integers(0, 50_000, size=k)]
    return {
        "draft_probs": draft,
        "target_probs": target,
        "draft_tokens": tokens,
        "target_dist_next": None,
    }


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
