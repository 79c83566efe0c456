"""Submit's random cases for top-p sampling (trusted: runs in the judge, not the sandbox)."""

import numpy as np

# No prefix sum within this of top_p, and no draw within this of a running sum: there a sum
# taken in another order lands on the other side, and two correct solutions could disagree.
MARGIN = 1e-9


def _distribution(rng, vocabulary):
    """Flat Dirichlet weights, some zeroed (never all), summing to 1."""
    weights = rng.standard_exponential(vocabulary)
    if vocabulary > 1 and rng.random() < 0.3:
        zero = rng.random(vocabulary) < 0.3
        zero[int(rng.integers(vocabulary))] = False
        weights[zero] = 0.0
    return weights / weights.sum()


def _nucleus(probs, top_p):
    """The reference's prefix sums in its order, and its renormalised weights by id."""
    ranked = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    prefix = np.cumsum([probs[i] for i in ranked])
    reach = np.flatnonzero(prefix >= top_p)
    kept = ranked[: reach[0] + 1] if reach.size else ranked
    mass = sum(probs[i] for i in kept)
    weights = [probs[i] / mass if i in kept else 0.0 for i in range(len(probs))]
    return prefix, np.cumsum(weights)


def random_case(rng):
    """One input: 1 to 16 tokens, top_p from 0.05 to 0.995 (three decimals) clear of every
    prefix sum, and a seed whose first draw is clear of every running sum of the nucleus."""
    while True:
        vocabulary = int(rng.integers(1, 17))
        probs = _distribution(rng, vocabulary).tolist()
        top_p = round(float(rng.uniform(0.05, 0.995)), 3)
        prefix, running = _nucleus(probs, top_p)
        if np.min(np.abs(prefix - top_p)) > MARGIN:
            break
    while True:
        seed = int(rng.integers(0, 2**31))
        u = np.random.default_rng(seed).random()
        if np.min(np.abs(running - u)) > MARGIN:
            return {"probs": probs, "top_p": top_p, "rng": {"seed": seed}}


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
