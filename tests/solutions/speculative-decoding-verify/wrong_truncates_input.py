# expect: wrong_answer worked example: one token kept, then a rejection
# message: modified
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    for i in range(len(draft_tokens)):
        a = 1.0 if draft_probs[i] == 0 else min(1.0, target_probs[i] / draft_probs[i])
        if np.random.uniform() >= a:
            del draft_tokens[i:]
            break
    return draft_tokens, len(draft_tokens)
