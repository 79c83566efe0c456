# expect: wrong_answer round-off: ten kept tokens of 0.1 add up to 0.9999999999999999 = u, so the last kept id 9, not the dropped id 10
# message: no running sum exceeds u
import numpy as np


def top_k_sample(logits, k, temperature, rng):
    x = np.asarray(logits, dtype=float)
    kept = np.argsort(-x, kind="stable")[:k]
    weights = np.zeros_like(x)
    weights[kept] = np.exp((x[kept] - x.max()) / temperature)
    probs = weights / weights.sum()
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(probs), u, side="right"))
    return min(token, len(probs) - 1)  # round-off: the last index, which may be a dropped token
