import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        if q == 0:
            a = 1.0
        else:
            a = min(1.0, p / q)
        r = np.random.uniform()
        if r < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
