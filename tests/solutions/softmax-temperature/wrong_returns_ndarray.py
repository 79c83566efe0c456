# expect: wrong_answer worked example at temperature 1: the plain softmax of [2, 1, 0]
# message: your return value must be a list, got numpy.ndarray
import numpy as np


def softmax_with_temperature(logits, temperature):
    x = np.asarray(logits, dtype=float)
    weights = np.exp((x - x.max()) / temperature)
    return weights / weights.sum()  # an ndarray, not a list
