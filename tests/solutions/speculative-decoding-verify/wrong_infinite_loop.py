# expect: time_limit_exceeded zero probabilities: draft 0 means keep, target 0 means reject
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    i = 0
    while i < len(draft_tokens):
        if draft_probs[i] == 0:
            continue  # meant to accept, but never moves on to the next position
        r = np.random.uniform()
        if r >= min(1.0, target_probs[i] / draft_probs[i]):
            break
        i += 1
    return draft_tokens[:i], i
