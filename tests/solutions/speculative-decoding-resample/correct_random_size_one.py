import numpy as np


def speculative_step(p, q, draft, rng):
    out = []
    n = 0
    for x in draft:
        u = rng.random(1)[0]
        if u >= p[n, x] / q[n, x]:
            break
        out.append(x)
        n += 1
    if n < len(draft):
        w = np.maximum(p[n] - q[n], 0.0)
        w = w / w.sum()
        out.append(sample(w, rng))
    else:
        out.append(sample(p[n], rng))
    return out
