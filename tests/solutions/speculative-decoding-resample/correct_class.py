import numpy as np


class Step:
    def __init__(self, p, q, rng):
        self.p = p
        self.q = q
        self.rng = rng

    def accepts(self, i, x):
        return self.rng.random() < self.p[i, x] / self.q[i, x]

    def replacement(self, i):
        residual = np.maximum(self.p[i] - self.q[i], 0.0)
        return sample(residual / residual.sum(), self.rng)

    def bonus(self):
        return sample(self.p[-1], self.rng)


def speculative_step(p, q, draft, rng):
    step = Step(p, q, rng)
    tokens = []
    for i, x in enumerate(draft):
        if step.accepts(i, x):
            tokens.append(x)
        else:
            tokens.append(step.replacement(i))
            return tokens
    tokens.append(step.bonus())
    return tokens
