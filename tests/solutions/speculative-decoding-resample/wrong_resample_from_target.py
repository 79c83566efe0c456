# expect: wrong_answer tie: u equals the acceptance ratio, so the proposal is rejected
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
            out.append(sample(p[i], rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
