import math


def top_k_sample(logits, k, temperature, rng):
    """Reference: keep the k largest logits (ties to the lower id), softmax of logits / T over
    them, then the inverse-CDF rule over every token id with one draw."""
    vocabulary = len(logits)
    ranked = sorted(range(vocabulary), key=lambda i: (-logits[i], i))
    kept = sorted(ranked[:k])
    top = logits[ranked[0]]  # the largest logit: exp((x - top) / T) <= 1 never overflows
    weights = [0.0] * vocabulary
    for i in kept:
        weights[i] = math.exp((logits[i] - top) / temperature)
    total = sum(weights[i] for i in kept)
    probs = [w / total for w in weights]
    u = rng.random()
    running = 0.0
    last_positive = None
    for token, p in enumerate(probs):
        running += p
        if u < running:
            return token
        if p > 0:
            last_positive = token
    return last_positive
