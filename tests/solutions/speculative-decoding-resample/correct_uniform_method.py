import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        u = rng.uniform(0, 1) if i % 2 else rng.uniform()
        ratio = p[i, x] / q[i, x]
        if u < min(1.0, ratio):
            out.append(x)
        else:
            leftover = np.where(p[i] > q[i], p[i] - q[i], 0.0)
            out.append(sample(leftover / leftover.sum(), rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
