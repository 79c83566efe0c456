import numpy as np


def speculative_step(p, q, draft, rng):
    proposals = np.array(draft)
    out = []
    for i in range(len(proposals)):
        x = proposals[i]
        if rng.random() < p[i, x] / q[i, x]:
            out.append(x)
        else:
            residual = np.maximum(p[i] - q[i], 0.0)
            out.append(np.int64(sample(residual / residual.sum(), rng)))
            return out
    out.append(np.int64(sample(p[len(proposals)], rng)))
    return out
