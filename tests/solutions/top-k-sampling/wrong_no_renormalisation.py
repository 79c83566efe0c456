# expect: wrong_answer worked example: k = 3 of five, T = 1, u = 0.65 falls in token 3's piece
# message: normalised [0, 0.5065, 0, 0.1863, 0.3072]
import numpy as np


def top_k_sample(logits, k, temperature, rng):
    x = np.asarray(logits, dtype=float) / temperature
    probs = np.exp(x - x.max())
    probs /= probs.sum()  # the softmax over all V tokens...
    dropped = np.argsort(-np.asarray(logits), kind="stable")[k:]
    probs[dropped] = 0.0  # ...then the tail zeroed: the kept ones add up to less than 1
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(probs), u, side="right"))
    return min(token, int(np.flatnonzero(probs)[-1]))
