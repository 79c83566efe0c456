import numpy as np


def step_from(i, p, q, draft, rng):
    if i == len(draft):
        return [sample(p[i], rng)]
    x = draft[i]
    if rng.random() < p[i, x] / q[i, x]:
        return [x] + step_from(i + 1, p, q, draft, rng)
    residual = np.maximum(p[i] - q[i], 0.0)
    return [sample(residual / residual.sum(), rng)]


def speculative_step(p, q, draft, rng):
    return step_from(0, p, q, draft, rng)
