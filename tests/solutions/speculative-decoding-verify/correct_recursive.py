import numpy as np


def verify_from(i, draft_probs, target_probs, draft_tokens):
    if i == len(draft_tokens):
        return []
    q, p = draft_probs[i], target_probs[i]
    a = 1.0 if q == 0 else min(1.0, p / q)
    if np.random.uniform() < a:
        return [draft_tokens[i]] + verify_from(i + 1, draft_probs, target_probs, draft_tokens)
    return []


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = verify_from(0, draft_probs, target_probs, draft_tokens)
    return kept, len(kept)
