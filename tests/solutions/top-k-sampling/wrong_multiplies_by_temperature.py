# expect: wrong_answer temperature 0.5: the logits are divided by T, which sharpens the kept distribution
# message: (weights exp((logit - 2) / 0.5)) = [0, 0.1353, 1, 0.3679]
import numpy as np


def top_k_sample(logits, k, temperature, rng):
    x = np.asarray(logits, dtype=float)
    kept = np.argsort(-x, kind="stable")[:k]
    weights = np.zeros_like(x)
    weights[kept] = np.exp((x[kept] - x.max()) * temperature)  # times T: T = 0.5 flattens
    probs = weights / weights.sum()
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(probs), u, side="right"))
    return min(token, int(np.flatnonzero(probs)[-1]))
