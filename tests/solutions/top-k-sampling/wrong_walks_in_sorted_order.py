# expect: wrong_answer worked example: k = 3 of five, T = 1, u = 0.65 falls in token 3's piece
# message: running sums [0, 0.5065, 0.5065, 0.6928, 1]; u falls in [0.5065, 0.6928): token 3
import math


def top_k_sample(logits, k, temperature, rng):
    kept = sorted(range(len(logits)), key=lambda i: (-logits[i], i))[:k]
    m = logits[kept[0]]
    weights = [math.exp((logits[i] - m) / temperature) for i in kept]
    total = sum(weights)
    u = rng.random()
    running = 0.0
    for i, w in zip(kept, weights):  # the kept tokens, most likely first: not by id
        running += w / total
        if u < running:
            return i
    return kept[-1]
