# expect: wrong_answer seed 42: eight tokens, each kept by a narrow margin
# message: float
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    table = np.array([draft_tokens, draft_probs, target_probs])
    kept = []
    for tok, q, p in table.T:
        a = 1.0 if q == 0 else min(1.0, p / q)
        if np.random.uniform() < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
