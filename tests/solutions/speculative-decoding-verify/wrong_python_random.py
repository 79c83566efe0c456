# expect: wrong_answer seed 42: eight tokens, each kept by a narrow margin
import random


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    random.seed(42)  # Python's generator: same seed, different stream from numpy's
    kept = []
    for q, p, tok in zip(draft_probs, target_probs, draft_tokens):
        a = 1.0 if q == 0 else min(1.0, p / q)
        if random.random() < a:
            kept.append(tok)
        else:
            break
    return kept, len(kept)
