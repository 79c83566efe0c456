# expect: wrong_answer worked example: u = 0.62 falls in [0.5, 0.8), token 1
# message: your function drew 0 random numbers; the reference draws 1 (0.62)
import numpy as np


def sample_token(probs, rng):
    u = np.random.random()  # numpy's global generator, not the one passed in
    total = 0.0
    for i, p in enumerate(probs):
        total += p
        if u < total:
            return i
    return max(i for i, p in enumerate(probs) if p > 0)
