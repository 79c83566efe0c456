import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    rs = np.random.RandomState(42)
    result = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        a = 1.0 if q == 0 else min(1.0, p / q)
        if rs.random_sample() < a:
            result.append(tok)
        else:
            break
    return result, len(result)
