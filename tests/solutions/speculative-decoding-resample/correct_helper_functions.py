import numpy as np


def residual_distribution(p_row, q_row):
    excess = np.maximum(p_row - q_row, 0.0)
    return excess / excess.sum()


def accept(u, p_x, q_x):
    return u < p_x / q_x


def speculative_step(p, q, draft, rng):
    new_tokens = []
    rejected = False
    for i, x in enumerate(draft):
        if accept(rng.random(), p[i, x], q[i, x]):
            new_tokens.append(x)
        else:
            new_tokens.append(sample(residual_distribution(p[i], q[i]), rng))
            rejected = True
            break
    if not rejected:
        new_tokens.append(sample(p[len(draft)], rng))
    return new_tokens
