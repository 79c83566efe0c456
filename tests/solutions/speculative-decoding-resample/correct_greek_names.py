# The paper's notation, γ for the draft length and α for the acceptance ratio: non-ASCII
# names must compile and run like any other.
import numpy as np


def speculative_step(p, q, draft, rng):
    γ = len(draft)
    résultat = []
    for i in range(γ):
        x = draft[i]
        α = p[i, x] / q[i, x]
        if rng.random() < α:
            résultat.append(int(x))
            continue
        résidu = np.maximum(p[i] - q[i], 0.0)
        résultat.append(int(sample(résidu / résidu.sum(), rng)))
        return résultat
    résultat.append(int(sample(p[γ], rng)))
    return résultat
