# expect: wrong_answer temperature 0.5: the logits are divided by T, which sharpens the kept distribution
# message: (weights exp((logit - 2) / 0.5)) = [0, 0.1353, 1, 0.3679]
import math


def top_k_sample(logits, k, temperature, rng):
    order = sorted(range(len(logits)), key=lambda i: (-logits[i], i))
    keep = set(order[:k])
    m = max(logits)
    weights = [math.exp(x - m) if i in keep else 0.0 for i, x in enumerate(logits)]  # no T
    total = sum(weights)
    u = rng.random()
    running = 0.0
    for i, w in enumerate(weights):
        running += w / total
        if u < running:
            return i
    return max(keep)
