import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        # u < p/q without the division (q[i, x] > 0 for a drafted token)
        if rng.random() * q[i, x] < p[i, x]:
            out.append(x)
            continue
        diff = p[i] - q[i]
        diff[diff < 0] = 0.0
        diff /= diff.sum()
        out.append(sample(diff, rng))
        return out
    return out + [sample(p[len(draft)], rng)]
