import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    tokens = np.array(draft_tokens)
    n = 0
    for q, p in zip(draft_probs, target_probs):
        a = 1.0 if q == 0 else (p / q if p < q else 1.0)
        if np.random.random_sample() < a:
            n += 1
        else:
            break
    return list(tokens[:n]), n
