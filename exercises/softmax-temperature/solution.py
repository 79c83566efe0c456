import math


def softmax_with_temperature(logits, temperature):
    """Reference: exp((x_i - m) / T) over the sum, with m the largest logit, in float64."""
    require_input(logits, temperature)
    m = max(logits)  # every exponent is <= 0, so exp never overflows
    weights = [math.exp((x - m) / temperature) for x in logits]
    total = math.fsum(weights)  # >= 1: the largest logit contributes exp(0)
    return [w / total for w in weights]


def require_input(logits, temperature):
    """A learner's own input (Try your own input) outside the rule's domain gets a sentence
    naming the problem instead of an answer: V >= 1 logits and a temperature above 0."""
    if len(logits) == 0:
        raise ValueError("logits is empty: a softmax needs at least one logit")
    if not temperature > 0:
        raise ValueError(f"temperature is {temperature!r}: it must be above 0")
