import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    """Reference: keep the longest prefix of the draft that survives the accept tests."""
    np.random.seed(42)
    accepted = []
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        # A token the draft gave no probability is accepted outright (no division by zero).
        accept_prob = 1.0 if q == 0 else min(1.0, p / q)
        r = np.random.uniform()  # one draw for every token that is examined
        if r < accept_prob:
            accepted.append(int(token))
        else:
            break
    return accepted, len(accepted)
