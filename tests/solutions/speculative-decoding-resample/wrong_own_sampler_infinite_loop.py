# expect: time_limit_exceeded worked example: rejection at the first position, replacement from the residual
import numpy as np


def draw(probs, rng):
    u = rng.random()
    k = 0
    total = probs[0]
    while total <= u:
        k += 1  # forgot to add probs[k] to the running total
    return k


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
