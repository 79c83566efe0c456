import math


def top_k_sample(logits, k, temperature, rng):
    order = sorted(range(len(logits)), key=lambda i: (-logits[i], i))
    keep = set(order[:k])
    m = max(logits)
    weights = [math.exp((x - m) / temperature) if i in keep else 0.0 for i, x in enumerate(logits)]
    total = sum(weights)
    u = rng.random()
    running = 0.0
    last = 0
    for i, w in enumerate(weights):
        p = w / total
        running += p
        if u < running:
            return i
        if p > 0:
            last = i
    return last
