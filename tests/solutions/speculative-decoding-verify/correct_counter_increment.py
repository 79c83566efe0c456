import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    stats = [0, 0]  # accepted, examined
    for i in range(len(draft_tokens)):
        stats[1] += 1
        a = 1.0
        if draft_probs[i] != 0:
            a = min(a, target_probs[i] / draft_probs[i])
        if np.random.random() < a:
            stats[0] += 1
        else:
            break
    n = stats[0]
    return [draft_tokens[j] for j in range(n)], n
