# expect: wrong_answer tie at the cut: exactly k tokens are kept, not every token tied with the k-th
# message: the kept tokens {0, 1} (weights exp((logit - 2) / 1))
import math


def top_k_sample(logits, k, temperature, rng):
    kth = sorted(logits, reverse=True)[min(k, len(logits)) - 1]
    keep = {i for i, x in enumerate(logits) if x >= kth}  # every token tied with the k-th
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
