import math


def softmax_with_temperature(logits, temperature):
    largest = logits[0]
    for x in logits:
        if x > largest:
            largest = x
    weights = []
    total = 0.0
    for x in logits:
        w = math.exp((x - largest) / temperature)
        weights.append(w)
        total += w
    probs = []
    for w in weights:
        probs.append(w / total)
    return probs
