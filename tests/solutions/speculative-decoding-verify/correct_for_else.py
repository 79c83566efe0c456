import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    for n, (q, p) in enumerate(zip(draft_probs, target_probs)):
        a = 1.0 if q == 0 else min(1.0, p / q)
        if not (np.random.uniform(0.0, 1.0) < a):
            break
    else:
        n = len(draft_tokens)
    return list(draft_tokens)[:n], n
