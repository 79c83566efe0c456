import numpy as np


def sample_token(probs, rng):
    p = np.array(probs, dtype=float)
    u = rng.random()
    above = np.cumsum(p) > u
    if above.any():
        return int(np.argmax(above))
    return int(np.nonzero(p)[0].max())
