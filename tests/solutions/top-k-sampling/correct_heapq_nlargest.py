import heapq
import math


def top_k_sample(logits, k, temperature, rng):
    # nsmallest on (-logit, id) is the k largest logits, lower ids first among equals.
    kept = {i for _, i in heapq.nsmallest(k, ((-x, i) for i, x in enumerate(logits)))}
    top = max(logits)
    exps = {i: math.exp((logits[i] - top) / temperature) for i in kept}
    z = sum(exps.values())
    u = rng.uniform()
    c = 0.0
    for i in range(len(logits)):
        c += exps.get(i, 0.0) / z
        if c > u:
            return i
    return max(i for i in kept if exps[i] > 0)
