# expect: wrong_answer zero probabilities: draft 0 means keep, target 0 means reject
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        # guards the wrong probability: a zero *target* is treated as certain acceptance
        if p == 0 or q == 0:
            a = 1.0
        else:
            a = min(1.0, p / q)
        if np.random.uniform() < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
