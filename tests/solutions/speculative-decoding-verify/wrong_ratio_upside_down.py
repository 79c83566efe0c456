# expect: wrong_answer worked example: one token kept, then a rejection
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        a = 1.0 if p == 0 else min(1.0, q / p)
        if np.random.uniform() < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
