# expect: wrong_answer worked example at temperature 2: the same logits, flatter
# message: position 0: you returned 0.6652409557748218, the reference 0.506480391055654 (off by 0.159
import math


def softmax_with_temperature(logits, temperature):
    m = max(logits)
    weights = [math.exp(x - m) for x in logits]  # the plain softmax, whatever T is
    total = sum(weights)
    return [w / total for w in weights]
