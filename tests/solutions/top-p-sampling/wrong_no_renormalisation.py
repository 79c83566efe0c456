# expect: wrong_answer the kept tokens are renormalised: u = 0.5 is above their raw share for token 1
# message: normalised [0, 0.5714, 0.4286, 0]
import numpy as np


def top_p_sample(probs, top_p, rng):
    p = np.asarray(probs, dtype=float)
    order = np.argsort(-p, kind="stable")
    n = int(np.searchsorted(np.cumsum(p[order]), top_p, side="left")) + 1
    q = np.zeros_like(p)
    q[order[:n]] = p[order[:n]]  # the nucleus as it is: it adds up to about top_p, not 1
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(q), u, side="right"))
    return min(token, int(np.flatnonzero(q)[-1]))
