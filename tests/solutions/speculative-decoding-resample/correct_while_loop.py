import numpy as np


def speculative_step(p, q, draft, rng):
    gamma = len(draft)
    result = []
    i = 0
    rejected = False
    while i < gamma and not rejected:
        x = draft[i]
        u = rng.random()
        if u < p[i, x] / q[i, x]:
            result.append(x)
            i += 1
        else:
            rejected = True
    if rejected:
        residual = np.maximum(p[i] - q[i], 0.0)
        residual = residual / residual.sum()
        result.append(sample(residual, rng))
    else:
        result.append(sample(p[gamma], rng))
    return result
