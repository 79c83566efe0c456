# expect: wrong_answer target probability 0: rejected even when u is 0.0; draw on a residual boundary
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        # the target rules x out, so reject without drawing
        if p[i, x] == 0 or rng.random() >= p[i, x] / q[i, x]:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(sample(residual / residual.sum(), rng))
            return out
        out.append(x)
    out.append(sample(p[len(draft)], rng))
    return out
