# expect: wrong_answer worked example: top_p = 0.8 keeps tokens 3, 1 and 4; u = 0.5 falls in token 3's piece
# message: asked for random number 2, more than this case provides (it had drawn 0.5)
import numpy as np


def top_p_sample(probs, top_p, rng):
    p = np.asarray(probs, dtype=float)
    order = np.argsort(-p, kind="stable")
    n = int(np.searchsorted(np.cumsum(p[order]), top_p, side="left")) + 1
    q = np.zeros_like(p)
    q[order[:n]] = p[order[:n]]
    q /= q.sum()
    if rng.random() < 0.0:  # a draw spent on nothing: the stream moves on by one
        return 0
    u = rng.random()
    token = int(np.searchsorted(np.cumsum(q), u, side="right"))
    return min(token, int(np.flatnonzero(q)[-1]))
