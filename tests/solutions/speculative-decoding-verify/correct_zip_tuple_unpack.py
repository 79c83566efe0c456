import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    np.random.seed(42)
    accepted = list()
    for triple in zip(draft_tokens, draft_probs, target_probs):
        token, q, p = triple
        threshold = 1.0 if q == 0 else float(np.minimum(1.0, np.divide(p, q)))
        u = float(np.random.uniform())
        if u >= threshold:
            break
        accepted += [token]
    num_accepted = sum(1 for _ in accepted)
    return (accepted, num_accepted)
