# expect: wrong_answer worked example: both proposals kept, then a bonus token
# message: modified
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    i = 0
    while draft:
        x = draft.pop(0)
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
            i += 1
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(sample(residual / residual.sum(), rng))
            return out
    out.append(sample(p[i], rng))
    return out
