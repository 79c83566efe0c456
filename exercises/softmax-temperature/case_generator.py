"""Submit's random cases for the softmax with a temperature (trusted: runs in the judge)."""

import numpy as np

# Correct solutions may divide before shifting (x / T - m / T) instead of (x - m) / T: the two
# exponents differ by round-off of the size of |x / T| times 2**-52, which becomes the relative
# error of the probability. Below 1e4 that is under 2e-12, far inside the 1e-9 tolerance.
MAX_SCALED = 1e4


def _logits(rng, vocabulary):
    """Logits at one of a few scales, sometimes far from 0 (where only the max shift works),
    sometimes with repeated values (equal logits must get equal probabilities)."""
    scale = float(rng.choice([0.5, 2.0, 8.0]))
    logits = rng.normal(0.0, scale, vocabulary)
    if rng.random() < 0.3:
        logits += float(rng.choice([-1.0, 1.0])) * float(rng.uniform(500.0, 1500.0))
    if vocabulary > 2 and rng.random() < 0.25:
        logits[int(rng.integers(vocabulary))] = logits[int(rng.integers(vocabulary))]
    return [round(float(x), 6) for x in logits]


def random_case(rng):
    """One input: 1 to 40 logits and a temperature from 0.05 to 20 (log-uniform)."""
    vocabulary = int(rng.integers(1, 41))
    while True:
        logits = _logits(rng, vocabulary)
        temperature = round(float(np.exp(rng.uniform(np.log(0.05), np.log(20.0)))), 4)
        if max(abs(x) for x in logits) / temperature <= MAX_SCALED:
            return {"logits": logits, "temperature": temperature}


if __name__ == "__main__":
    print(random_case(np.random.default_rng(0)))
