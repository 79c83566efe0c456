# expect: wrong_answer worked example: u = 0.62 falls in [0.5, 0.8), token 1
# message: must be an int, got float (1.0)
import numpy as np


def sample_token(probs, rng):
    cdf = np.cumsum(probs)
    u = rng.random()
    token = np.searchsorted(cdf, u, side="right")
    if token == len(probs):
        token = np.flatnonzero(np.asarray(probs) > 0)[-1]
    return float(token)  # 1.0 is a number, not a token id
