import numpy as np


def speculative_step(p, q, draft, rng):
    gamma = len(draft)
    rows = np.arange(gamma)
    cols = np.array(draft, dtype=int)
    accept_prob = np.minimum(1.0, p[rows, cols] / q[rows, cols])
    residuals = np.maximum(p[:gamma] - q, 0.0)
    out = []
    for i in range(gamma):
        # one draw per examined proposal, never drawn ahead
        if rng.random() < accept_prob[i]:
            out.append(int(cols[i]))
        else:
            out.append(sample(residuals[i] / residuals[i].sum(), rng))
            return out
    out.append(sample(p[gamma], rng))
    return out
