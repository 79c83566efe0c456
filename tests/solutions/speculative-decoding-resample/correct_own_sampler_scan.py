import numpy as np


def pick(probs, rng):
    u = rng.random()
    total = 0.0
    last_positive = 0
    for k, w in enumerate(probs):
        if w > 0:
            last_positive = k
        total += w
        if u < total:
            return k
    return last_positive


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = [max(0.0, a - b) for a, b in zip(p[i], q[i])]
            s = sum(residual)
            out.append(pick([r / s for r in residual], rng))
            return out
    out.append(pick(p[len(draft)], rng))
    return out
