# A small class hierarchy with special methods, super().__init__ and a nonlocal counter.
import numpy as np


class Draws:
    def __init__(self, rng):
        self.rng = rng
        self.count = 0

    def __call__(self):
        self.count += 1
        return self.rng.random()


class Verifier(Draws):
    def __init__(self, p, q, rng):
        super().__init__(rng)
        self.p: np.ndarray = p
        self.q: np.ndarray = q

    def __len__(self):
        return len(self.q)

    def __getitem__(self, i):
        return self.p[i], self.q[i]

    def __repr__(self):
        return f"Verifier(gamma={len(self)}, draws={self.count})"


def speculative_step(p, q, draft, rng):
    verifier = Verifier(p, q, rng)
    tokens = []
    rejected_at = None

    def note(i):
        nonlocal rejected_at
        rejected_at = i

    for i, x in enumerate(draft):
        p_i, q_i = verifier[i]
        if verifier() < p_i[x] / q_i[x]:
            tokens.append(int(x))
        else:
            note(i)
            break
    if rejected_at is None:
        tokens.append(int(sample(p[len(verifier)], rng)))
    else:
        residual = np.maximum(p[rejected_at] - q[rejected_at], 0.0)
        tokens.append(int(sample(residual / residual.sum(), rng)))
    print(repr(verifier))
    return tokens
