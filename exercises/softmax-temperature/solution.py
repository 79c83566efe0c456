import math


def softmax_with_temperature(logits, temperature):
    """Reference: exp((x_i - m) / T) over the sum, with m the largest logit, in float64."""
    m = max(logits)  # every exponent is <= 0, so exp never overflows
    weights = [math.exp((x - m) / temperature) for x in logits]
    total = math.fsum(weights)  # >= 1: the largest logit contributes exp(0)
    return [w / total for w in weights]
