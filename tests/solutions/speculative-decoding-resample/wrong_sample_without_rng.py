# expect: runtime_error worked example: rejection at the first position, replacement from the residual
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(sample(residual / residual.sum()))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
