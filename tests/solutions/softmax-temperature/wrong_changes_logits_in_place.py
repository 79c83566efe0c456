# expect: wrong_answer worked example at temperature 1: the plain softmax of [2, 1, 0]
# message: your function modified its argument logits (it was [2.0, 1.0, 0.0], afterwards [0.6652
import math


def softmax_with_temperature(logits, temperature):
    m = max(logits)
    for i in range(len(logits)):
        logits[i] = math.exp((logits[i] - m) / temperature)
    total = sum(logits)
    for i in range(len(logits)):
        logits[i] /= total
    return logits  # the right numbers, written over the caller's list
