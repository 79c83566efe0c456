# expect: wrong_answer seed 42: eight tokens, each kept by a narrow margin
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    rng = np.random.default_rng(42)
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        a = 1.0 if q == 0 else min(1.0, p / q)
        if rng.random() < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
