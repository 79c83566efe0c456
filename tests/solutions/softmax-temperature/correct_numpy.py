import numpy as np


def softmax_with_temperature(logits, temperature):
    x = np.asarray(logits, dtype=np.float64)
    weights = np.exp((x - x.max()) / temperature)
    return (weights / weights.sum()).tolist()
