# expect: wrong_answer draft = target = 0: certain acceptance, never 0 < 0
import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    # Multiplying instead of dividing avoids the division by zero, but without the guard a
    # token with draft = target = 0 is rejected (0 < 0 is false) instead of accepted.
    np.random.seed(42)
    accepted = []
    for d, t, token in zip(draft_probs, target_probs, draft_tokens):
        r = np.random.uniform()
        if r * d < t:
            accepted.append(int(token))
        else:
            break
    return accepted, len(accepted)
