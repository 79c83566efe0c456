import numpy as np


def acceptance_probability(q, p):
    """Chance of keeping a token: min(1, p/q), and 1 when the draft gave it no mass."""
    if q == 0:
        return 1.0
    return min(1.0, p / q)


def keep(q, p):
    return np.random.uniform() < acceptance_probability(q, p)


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    accepted = []
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        if not keep(q, p):
            break
        accepted.append(token)
    return accepted, len(accepted)
