# expect: wrong_answer seed 42: eight tokens, each kept by a narrow margin
# message: list
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    q = np.array(draft_probs)
    p = np.array(target_probs)
    a = np.where(q == 0, 1.0, np.minimum(1.0, p / np.where(q == 0, 1.0, q)))
    ok = np.random.uniform(size=len(a)) < a
    n = len(ok) if ok.all() else int(np.argmin(ok))
    return np.array(draft_tokens)[:n], n
