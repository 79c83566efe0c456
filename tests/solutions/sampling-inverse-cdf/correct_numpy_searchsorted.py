import numpy as np


def sample_token(probs, rng):
    weights = np.asarray(probs, dtype=np.float64)
    cdf = np.cumsum(weights)
    u = rng.random()
    token = int(np.searchsorted(cdf, u, side="right"))  # first running sum above u
    if token == len(weights):  # round-off: u is past the total
        token = int(np.flatnonzero(weights > 0)[-1])
    return token
