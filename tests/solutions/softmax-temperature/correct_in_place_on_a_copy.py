def softmax_with_temperature(logits, temperature):
    import math

    probs = list(logits)  # a copy: changing it in place leaves the caller's list alone
    m = max(probs)
    for i in range(len(probs)):
        probs[i] = math.exp((probs[i] - m) / temperature)
    total = sum(probs)
    for i in range(len(probs)):
        probs[i] /= total
    return probs
