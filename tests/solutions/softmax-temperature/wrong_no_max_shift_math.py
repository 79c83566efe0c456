# expect: runtime_error logits of 1000: exp(1000) overflows unless the largest logit is subtracted first
# message: OverflowError
import math


def softmax_with_temperature(logits, temperature):
    weights = [math.exp(x / temperature) for x in logits]  # math.exp(1000.0) raises
    total = sum(weights)
    return [w / total for w in weights]
