"""The exact law of top-k sampling on an input: the sampler check's expectation (trusted)."""

import math


def law(logits, k, temperature):
    """softmax(logits / temperature) over the k largest logits (ties to the lower id), 0 for
    every other token, indexed by token id."""
    ranked = sorted(range(len(logits)), key=lambda i: (-logits[i], i))
    kept = ranked[:k]
    top = logits[ranked[0]]
    weights = [0.0] * len(logits)
    for i in kept:
        weights[i] = math.exp((logits[i] - top) / temperature)
    total = sum(weights)
    return [w / total for w in weights]
