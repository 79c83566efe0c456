import numpy as np


def sample_token(probs, rng):
    u = rng.uniform()  # the same number as rng.random()
    i, c = 0, 0.0
    while i < len(probs):
        c += probs[i]
        if c > u:
            return np.int64(i)
        i += 1
    return max(j for j, p in enumerate(probs) if p > 0)
