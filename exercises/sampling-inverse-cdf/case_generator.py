"""Submit's random cases for inverse-CDF sampling (trusted: runs in the judge, not the sandbox)."""

import numpy as np

# No draw within this of a running sum: there a sum taken in another order (or in float32)
# could put the draw on the other side, and two correct solutions would disagree.
MARGIN = 1e-9


def _distribution(rng, vocabulary):
    """Flat Dirichlet weights over ``vocabulary`` tokens, some zeroed (never all), summing to 1."""
    weights = rng.standard_exponential(vocabulary)
    if vocabulary > 1 and rng.random() < 0.4:
        zero = rng.random(vocabulary) < 0.35
        zero[int(rng.integers(vocabulary))] = False
        weights[zero] = 0.0
    return weights / weights.sum()


def _clear_of_every_sum(probs, u):
    running = np.cumsum(probs)
    return bool(np.min(np.abs(running - u)) > MARGIN)


def random_case(rng):
    """One input: 1 to 16 tokens, sometimes with zeros, and a seed whose first draw (the one the
    rule makes) is clear of every running sum."""
    vocabulary = int(rng.integers(1, 17))
    probs = _distribution(rng, vocabulary).tolist()
    while True:
        seed = int(rng.integers(0, 2**31))
        u = np.random.default_rng(seed).random()
        if _clear_of_every_sum(probs, u):
            return {"probs": probs, "rng": {"seed": seed}}


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
