# expect: wrong_answer target probability 0: rejected even when u is 0.0; draw on a residual boundary
import numpy as np


def draw(probs, rng):
    c = np.cumsum(probs)
    u = rng.random()
    k = int(np.searchsorted(c, u))  # side='left': a draw on a boundary goes to the wrong token
    return min(k, len(probs) - 1)


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(draw(residual / residual.sum(), rng))
            return out
    out.append(draw(p[len(draft)], rng))
    return out
