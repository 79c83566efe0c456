import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    q = np.array(draft_probs, dtype=float)
    p = np.array(target_probs, dtype=float)
    safe_q = np.where(q == 0, 1.0, q)
    a = np.where(q == 0, 1.0, np.minimum(1.0, p / safe_q))
    r = np.random.uniform(size=len(a))
    ok = r < a
    n = len(ok) if ok.all() else int(np.argmin(ok))
    return list(draft_tokens[:n]), n
