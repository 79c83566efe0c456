# expect: wrong_answer worked example: rejection at the first position, replacement from the residual
import numpy as np


def speculative_step(p, q, draft, rng):
    us = rng.random(len(draft))
    out = []
    for i, x in enumerate(draft):
        if us[i] < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(sample(residual / residual.sum(), rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
