import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    k = len(draft_tokens)
    probs = [1.0 if q == 0 else min(1.0, p / q) for q, p in zip(draft_probs, target_probs)]
    draws = [np.random.uniform() for _ in range(k)]
    flags = [r < a for r, a in zip(draws, probs)]
    n = flags.index(False) if False in flags else k
    return draft_tokens[:n], n
