import numpy as np


def top_p_sample(probs, top_p, rng):
    # The library way: drop a token when the probability before it already reaches top_p.
    p = np.array(probs, dtype=float)
    order = np.argsort(-p, kind="stable")
    covered_before = np.concatenate(([0.0], np.cumsum(p[order])[:-1]))
    drop = covered_before >= top_p
    keep = order[~drop]
    q = np.zeros_like(p)
    q[keep] = p[keep] / p[keep].sum()
    u = rng.uniform()
    c = np.cumsum(q)
    hits = np.flatnonzero(c > u)
    return int(hits[0]) if hits.size else int(np.flatnonzero(q)[-1])
