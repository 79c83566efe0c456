# expect: wrong_answer round-off: no running sum exceeds u, so the last token of positive probability
# message: no running sum exceeds u, so the last token of probability above 0: token 2
import numpy as np


def sample_token(probs, rng):
    cdf = np.cumsum(probs)
    u = rng.random()
    # Clamped to the last index: token 3 when it has probability 0.
    return int(min(np.searchsorted(cdf, u, side="right"), len(probs) - 1))
