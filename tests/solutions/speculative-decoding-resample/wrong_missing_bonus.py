# expect: wrong_answer worked example: both proposals kept, then a bonus token
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            residual = residual / residual.sum()
            out.append(sample(residual, rng))
            return out
    return out
