# expect: wrong_answer worked example: rejection at the first position, replacement from the residual
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.abs(p[i] - q[i])
            residual = residual / residual.sum()
            out.append(sample(residual, rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
