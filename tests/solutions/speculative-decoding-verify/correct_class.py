import numpy as np


class Verifier:
    def __init__(self, seed):
        np.random.seed(seed)
        self.kept = []

    def check(self, q, p, token):
        a = 1.0 if q == 0 else min(1.0, p / q)
        ok = np.random.uniform() < a
        if ok:
            self.kept.append(token)
        return ok

    def result(self):
        return list(self.kept), len(self.kept)


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    verifier = Verifier(42)
    for q, p, token in zip(draft_probs, target_probs, draft_tokens):
        if not verifier.check(q, p, token):
            break
    return verifier.result()
