"""Submit's random cases for the full step (trusted: runs in the judge, not the sandbox)."""

import numpy as np


def _rows(rng, count, vocabulary, sparse):
    """``count`` random distributions over ``vocabulary`` tokens (flat Dirichlet), as an array."""
    weights = rng.standard_exponential((count, vocabulary))  # normalised: Dirichlet(1, ..., 1)
    if sparse:
        # Zero out some tokens, but never all of a row: each row stays a distribution.
        zero = rng.random((count, vocabulary)) < 0.4
        zero[np.arange(count), rng.integers(vocabulary, size=count)] = False
        weights[zero] = 0.0
    return weights / weights.sum(axis=1, keepdims=True)


def random_case(rng):
    """One input: gamma from 0 to 6, a vocabulary of 2 to 12, the draft drawn from q as a real
    draft model would, and a seeded generator for the step's own draws."""
    gamma = int(rng.integers(0, 7))
    vocabulary = int(rng.integers(2, 13))
    sparse = bool(rng.random() < 0.3)
    q = _rows(rng, gamma, vocabulary, sparse)
    p = _rows(rng, gamma + 1, vocabulary, sparse)
    # Each proposal drawn from its q row by inverse CDF; a drafted token has q > 0 (the target
    # may still rule it out). The last index guards the round-off tail of the running sums.
    cumulative = np.cumsum(q, axis=1)
    draws = rng.random(gamma)
    draft = [
        int(min(np.searchsorted(row, u, side="right"), np.flatnonzero(weights)[-1]))
        for row, u, weights in zip(cumulative, draws, q)
    ]
    # JSON cannot give an empty q its shape (0, V); the judge's spelling for it is "empty".
    q_input = q.tolist() if gamma else {"empty": [0, vocabulary]}
    seed = int(rng.integers(0, 2**31))
    return {"p": p.tolist(), "q": q_input, "draft": draft, "rng": {"seed": seed}}
