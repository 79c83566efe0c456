import numpy as np


def softmax_with_temperature(logits, temperature):
    # Scale first, then shift by the largest scaled logit: the same exponents up to round-off.
    z = np.array(logits, dtype=float) / temperature
    z -= np.max(z)  # z is a new array: the caller's logits stay as they were
    e = np.exp(z)
    return list(e / np.sum(e))
