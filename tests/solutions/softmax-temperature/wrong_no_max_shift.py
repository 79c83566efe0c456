# expect: wrong_answer logits of 1000: exp(1000) overflows unless the largest logit is subtracted first
# message: position 0: you returned nan (not a number), the reference 0.66522
import numpy as np


def softmax_with_temperature(logits, temperature):
    # No shift: exp(1000) is inf, and inf / inf is nan.
    weights = np.exp(np.asarray(logits, dtype=float) / temperature)
    return (weights / weights.sum()).tolist()
