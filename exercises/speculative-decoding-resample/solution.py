import numpy as np


def speculative_step(p, q, draft, rng):
    """Reference: verify the draft, resample on the first rejection, else add a bonus token."""
    gamma = len(draft)
    tokens = []
    for i in range(gamma):
        x = draft[i]
        u = rng.random()  # one draw per accept test
        if u < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        # Rejected: the replacement comes from the part of p that the draft under-proposes.
        residual = np.maximum(p[i] - q[i], 0.0)
        residual = residual / residual.sum()
        tokens.append(int(sample(residual, rng)))
        return tokens
    # Every proposal survived: the target's extra row gives one more token for free.
    tokens.append(int(sample(p[gamma], rng)))
    return tokens
