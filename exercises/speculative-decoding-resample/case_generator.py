"""Submit's random cases for the full step (trusted: runs in the judge, not the sandbox)."""

import numpy as np


def _row(rng, vocabulary, sparse):
    weights = rng.dirichlet(np.ones(vocabulary))
    if sparse:
        # Zero out some tokens, but never all: a row stays a distribution.
        zero = rng.random(vocabulary) < 0.4
        zero[rng.integers(vocabulary)] = False
        weights[zero] = 0.0
        weights = weights / weights.sum()
    return [float(w) for w in weights]


def random_case(rng):
    """One input: gamma from 0 to 6, a vocabulary of 2 to 12, the draft drawn from q as a real
    draft model would, and a seeded generator for the step's own draws."""
    gamma = int(rng.integers(0, 7))
    vocabulary = int(rng.integers(2, 13))
    sparse = bool(rng.random() < 0.3)
    q = [_row(rng, vocabulary, sparse) for _ in range(gamma)]
    p = [_row(rng, vocabulary, sparse) for _ in range(gamma + 1)]
    draft = [int(rng.choice(vocabulary, p=row)) for row in q]
    # A drafted token has draft probability > 0 by construction; the target may rule it out.
    # JSON cannot give an empty q its shape (0, V); the judge's spelling for it is "empty".
    q_input = q if gamma else {"empty": [0, vocabulary]}
    return {"p": p, "q": q_input, "draft": draft, "rng": {"seed": int(rng.integers(0, 2**31))}}
