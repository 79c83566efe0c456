import numpy as np


def top_p_sample(probs, top_p, rng):
    p = np.asarray(probs, dtype=np.float64)
    order = np.argsort(-p, kind="stable")  # by probability, equal ones in id order
    covered = np.cumsum(p[order])
    n = int(np.searchsorted(covered, top_p, side="left")) + 1  # first prefix sum >= top_p
    nucleus = order[: min(n, len(p))]
    q = np.zeros_like(p)
    q[nucleus] = p[nucleus]
    q /= q.sum()
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(q), u, side="right"))
    if token >= len(q):
        token = int(np.flatnonzero(q > 0)[-1])
    return token
