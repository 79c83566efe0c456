# expect: wrong_answer worked example at temperature 2: the same logits, flatter
# message: position 0: you returned 0.8668133321973347, the reference 0.506480391055654 (off by 0.36
import math


def softmax_with_temperature(logits, temperature):
    m = max(logits)
    weights = [math.exp((x - m) * temperature) for x in logits]  # T = 2 sharpens instead
    total = sum(weights)
    return [w / total for w in weights]
