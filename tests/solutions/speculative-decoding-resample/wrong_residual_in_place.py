# expect: wrong_answer worked example: rejection at the first position, replacement from the residual
# message: modified
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = p[i]  # a view into p, not a copy
            residual -= q[i]
            residual[residual < 0] = 0.0
            residual /= residual.sum()
            out.append(sample(residual, rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
