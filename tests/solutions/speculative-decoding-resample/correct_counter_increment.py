import numpy as np


def speculative_step(p, q, draft, rng):
    counts = [0, 0]  # accepted, rejected
    out = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            counts[0] += 1
            out.append(x)
        else:
            counts[1] += 1
            break
    if counts[1]:
        i = counts[0]
        residual = np.maximum(p[i] - q[i], 0.0)
        out.append(sample(residual / residual.sum(), rng))
    else:
        out.append(sample(p[counts[0]], rng))
    return out
