# expect: wrong_answer u = 0 and a one-token nucleus {1}: the dropped token 0 owns an empty piece, so token 1 (u < c, not u <= c)
# message: draw 1 gave u = 0
import numpy as np


def top_p_sample(probs, top_p, rng):
    p = np.asarray(probs, dtype=float)
    order = np.argsort(-p, kind="stable")
    covered = np.cumsum(p[order])
    n = int(np.searchsorted(covered, top_p, side="left")) + 1  # the first prefix sum >= top_p
    nucleus = np.zeros_like(p)
    nucleus[order[:n]] = p[order[:n]]
    nucleus /= nucleus.sum()
    u = rng.random()
    # side="left" finds the first running sum >= u: a draw on a boundary stays with the token
    # before it, even one of probability 0
    token = int(np.searchsorted(np.cumsum(nucleus), u))
    return min(token, int(np.flatnonzero(nucleus)[-1]))
