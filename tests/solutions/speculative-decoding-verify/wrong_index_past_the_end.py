# expect: runtime_error seed 42: eight tokens, each kept by a narrow margin
# message: index
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    i = 0
    while True:
        a = 1.0 if draft_probs[i] == 0 else min(1.0, target_probs[i] / draft_probs[i])
        if np.random.uniform() >= a:
            break
        i += 1
    return draft_tokens[:i], i
