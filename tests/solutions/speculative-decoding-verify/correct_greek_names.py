# The paper's own notation: non-ASCII names (α, q̃), comments and output must all work.
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    kept = []
    for q̃, p̃, token in zip(draft_probs, target_probs, draft_tokens):
        α = 1.0 if q̃ == 0 else min(1.0, p̃ / q̃)  # acceptance probability
        if np.random.uniform() < α:
            kept.append(int(token))
        else:
            break
    print(f"kept {len(kept)} token(s) → “done”")
    return kept, len(kept)
