# expect: wrong_answer worked example: both proposals kept, then a bonus token
import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    for i, x in enumerate(draft):
        ratio = p[i, x] / q[i, x]
        # a ratio of 1 or more is accepted anyway, so this skips the draw
        if ratio >= 1 or rng.random() < ratio:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(sample(residual / residual.sum(), rng))
            return out
    out.append(sample(p[len(draft)], rng))
    return out
