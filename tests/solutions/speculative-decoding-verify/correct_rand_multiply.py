import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    out = []
    for i, token in enumerate(draft_tokens):
        r = np.random.rand()
        # r < p/q written without the division; a zero draft probability means keep.
        if draft_probs[i] == 0 or r * draft_probs[i] < target_probs[i]:
            out.append(token)
        else:
            break
    return out, len(out)
