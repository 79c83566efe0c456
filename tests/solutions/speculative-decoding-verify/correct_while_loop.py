import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    k = len(draft_tokens)
    i = 0
    while i < k:
        d = draft_probs[i]
        t = target_probs[i]
        accept_prob = 1.0 if d == 0 else min(1.0, t / d)
        if np.random.uniform() >= accept_prob:
            break
        i += 1
    return draft_tokens[:i], i
