import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    for i in range(len(draft_tokens)):
        ratio = 1.0 if draft_probs[i] == 0 else target_probs[i] / draft_probs[i]
        if not np.random.uniform() < min(ratio, 1):
            return list(draft_tokens[:i]), i
    return list(draft_tokens), len(draft_tokens)
