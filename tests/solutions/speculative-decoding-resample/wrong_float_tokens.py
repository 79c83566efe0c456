# expect: wrong_answer worked example: both proposals kept, then a bonus token
# message: float
import numpy as np


def speculative_step(p, q, draft, rng):
    out = np.array([])
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            out = np.append(out, x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out = np.append(out, sample(residual / residual.sum(), rng))
            return out.tolist()
    out = np.append(out, sample(p[len(draft)], rng))
    return out.tolist()
