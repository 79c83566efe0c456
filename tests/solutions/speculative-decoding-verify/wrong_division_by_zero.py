# expect: runtime_error zero probabilities: draft 0 means keep, target 0 means reject
# message: division by zero
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        if np.random.uniform() < min(1.0, p / q):
            kept.append(tok)
        else:
            break
    return kept, len(kept)
