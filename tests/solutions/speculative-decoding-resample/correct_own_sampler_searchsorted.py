import numpy as np


def draw_token(probs, rng):
    """My own inverse-CDF sampler: half-open intervals, one draw."""
    c = np.cumsum(probs)
    u = rng.random()
    k = int(np.searchsorted(c, u, side="right"))
    if k >= len(probs):
        k = int(np.nonzero(np.asarray(probs) > 0)[0][-1])
    return k


def speculative_step(p, q, draft, rng):
    accepted = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            accepted.append(x)
            continue
        r = np.maximum(p[i] - q[i], 0.0)
        accepted.append(draw_token(r / r.sum(), rng))
        return accepted
    accepted.append(draw_token(p[len(draft)], rng))
    return accepted
