# expect: wrong_answer certain acceptances still use up a draw
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        if p >= q:
            kept.append(tok)  # certain anyway, so no draw... but the stream shifts
            continue
        if np.random.uniform() < p / q:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
