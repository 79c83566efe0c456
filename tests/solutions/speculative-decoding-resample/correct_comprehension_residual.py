import numpy as np


def speculative_step(p, q, draft, rng):
    gamma = len(draft)
    ratios = [p[i, x] / q[i, x] for i, x in enumerate(draft)]
    out = []
    for i in range(gamma):
        if rng.random() < ratios[i]:
            out.append(draft[i])
            continue
        excess = [max(0.0, float(a) - float(b)) for a, b in zip(p[i], q[i])]
        total = sum(excess)
        out.append(sample([e / total for e in excess], rng))
        return out
    out.append(sample(p[gamma], rng))
    return out
