# expect: wrong_answer u = 0 with k = 1: the dropped token 0 owns an empty piece, so token 1 (u < c, not u <= c)
# message: draw 1 gave u = 0
import math


def top_k_sample(logits, k, temperature, rng):
    order = sorted(range(len(logits)), key=lambda i: (-logits[i], i))
    keep = set(order[:k])
    m = max(logits)
    weights = [math.exp((x - m) / temperature) if i in keep else 0.0 for i, x in enumerate(logits)]
    total = sum(weights)
    u = rng.random()
    running = 0.0
    for i, w in enumerate(weights):
        running += w / total
        if u <= running:  # a draw on a boundary goes to the token before it, even one of p = 0
            return i
    return max(keep)
