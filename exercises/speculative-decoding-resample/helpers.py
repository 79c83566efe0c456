import numpy as np


def sample(probs, rng):
    """Draw one token id from the distribution ``probs`` with exactly one ``rng.random()`` call.

    Inverse-CDF sampling over the running sums c = cumsum(probs): token i owns the half-open
    interval [c[i-1], c[i]), so a draw that lands exactly on a boundary belongs to the next
    token and a token of probability zero is never returned. ``probs`` is used as given (it is
    not renormalised); if round-off leaves the draw at or above the last running sum, the last
    token with positive probability is returned.
    """
    weights = np.asarray(probs, dtype=float)
    running = np.cumsum(weights)
    u = rng.random()
    token = int(np.searchsorted(running, u, side="right"))
    if token >= len(weights):
        token = int(np.flatnonzero(weights > 0)[-1])
    return token
