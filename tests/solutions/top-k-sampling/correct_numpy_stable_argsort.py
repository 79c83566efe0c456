import numpy as np


def top_k_sample(logits, k, temperature, rng):
    x = np.asarray(logits, dtype=np.float64)
    kept = np.argsort(-x, kind="stable")[:k]  # stable: equal logits stay in id order
    z = np.full(x.shape, -np.inf)
    z[kept] = (x[kept] - x.max()) / temperature
    weights = np.exp(z)  # exp(-inf) = 0 for the dropped tokens
    probs = weights / weights.sum()
    cdf = np.cumsum(probs)
    u = rng.random()
    token = int(np.searchsorted(cdf, u, side="right"))
    if token >= len(probs):
        token = int(np.flatnonzero(probs > 0)[-1])
    return token
