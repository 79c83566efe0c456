# expect: wrong_answer round-off tail: ten 0.1's sum below 1 and the draw is 1 - 2**-53; the last token has probability 0
# message: position 1
import numpy as np


def sample(probs, rng):
    """The given sampler, edited: past the last running sum it returns the last index, even
    when that token has probability zero."""
    running = np.cumsum(np.asarray(probs, dtype=float))
    u = rng.random()
    return min(int(np.searchsorted(running, u, side="right")), len(running) - 1)


def speculative_step(p, q, draft, rng):
    tokens = []
    for i, x in enumerate(draft):
        if rng.random() < p[i, x] / q[i, x]:
            tokens.append(int(x))
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        tokens.append(int(sample(residual / residual.sum(), rng)))
        return tokens
    tokens.append(int(sample(p[len(draft)], rng)))
    return tokens
