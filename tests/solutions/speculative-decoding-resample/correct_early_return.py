import numpy as np


def speculative_step(p, q, draft, rng):
    tokens = []
    for i in range(len(draft)):
        x = draft[i]
        if not rng.random() < p[i][x] / q[i][x]:
            res = np.clip(p[i] - q[i], 0.0, None)
            return tokens + [sample(res / np.sum(res), rng)]
        tokens.append(x)
    return tokens + [sample(p[-1], rng)]
