# expect: wrong_answer worked example at temperature 1: the plain softmax of [2, 1, 0]
# message: position 0: you returned 0.6652409434318542, the reference 0.6652409557748218 (off by 1.2e-8, relative 1.9e-8; the tolerance is 1e-9 relative)
import numpy as np


def softmax_with_temperature(logits, temperature):
    x = np.asarray(logits, dtype=np.float32)  # about 7 significant digits
    weights = np.exp((x - x.max()) / np.float32(temperature))
    return (weights / weights.sum()).tolist()
