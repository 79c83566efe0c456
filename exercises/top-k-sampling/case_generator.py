"""Submit's random cases for top-k sampling (trusted: runs in the judge, not the sandbox)."""

import math

import numpy as np

# No draw within this of a running sum: an exp or a sum taken in another order lands a few
# ulps away, and there two correct solutions could disagree.
MARGIN = 1e-9


def _running_sums(logits, k, temperature):
    """The reference's running sums over every token id (as solution.py computes them)."""
    ranked = sorted(range(len(logits)), key=lambda i: (-logits[i], i))
    kept = sorted(ranked[:k])
    top = logits[ranked[0]]
    weights = [0.0] * len(logits)
    for i in kept:
        weights[i] = math.exp((logits[i] - top) / temperature)
    total = sum(weights[i] for i in kept)
    return np.cumsum([w / total for w in weights])


def random_case(rng):
    """One input: 1 to 16 logits with two decimals (so ties at the cut happen, and distinct
    logits stay distinct after the division by T), k from 1 to V + 2, T from 0.25 to 4, and a
    seed whose first draw is clear of every running sum."""
    vocabulary = int(rng.integers(1, 17))
    logits = [round(float(x), 2) for x in rng.normal(0.0, 2.0, vocabulary)]
    if vocabulary > 2 and rng.random() < 0.4:
        # A repeated logit, often at the cut: the tie rule decides which ids are kept.
        logits[int(rng.integers(vocabulary))] = logits[int(rng.integers(vocabulary))]
    k = int(rng.integers(1, vocabulary + 3))
    temperature = round(float(np.exp(rng.uniform(math.log(0.25), math.log(4.0)))), 3)
    running = _running_sums(logits, k, temperature)
    while True:
        seed = int(rng.integers(0, 2**31))
        u = np.random.default_rng(seed).random()
        if np.min(np.abs(running - u)) > MARGIN:
            return {"logits": logits, "k": k, "temperature": temperature, "rng": {"seed": seed}}


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
