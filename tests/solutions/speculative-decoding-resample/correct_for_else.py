import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0)
            out.append(sample(residual / residual.sum(), rng))
            break
    else:
        out.append(sample(p[len(draft)], rng))
    return out
