# expect: wrong_answer tie at the cut: of two equal logits, the lower id is kept
# message: the kept tokens {0, 1}
import math


def top_k_sample(logits, k, temperature, rng):
    # sorted(..., reverse=True) on (logit, id) puts the higher id first among equal logits.
    order = sorted(range(len(logits)), key=lambda i: (logits[i], i), reverse=True)
    keep = set(order[:k])
    m = max(logits)
    weights = [math.exp((x - m) / temperature) if i in keep else 0.0 for i, x in enumerate(logits)]
    total = sum(weights)
    u = rng.random()
    running = 0.0
    for i, w in enumerate(weights):
        running += w / total
        if u < running:
            return i
    return max(keep)
