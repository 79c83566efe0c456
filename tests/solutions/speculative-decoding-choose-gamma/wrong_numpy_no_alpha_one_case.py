# expect: wrong_answer alpha = 1: every draft is kept (the closed form divides by zero)
# message: gamma: you returned 0 but the reference returned 10
import numpy as np


def choose_gamma(alpha, c, max_gamma):
    gammas = np.arange(max_gamma + 1)
    # at alpha = 1 numpy turns 0 / 0 into nan (with a warning) instead of raising
    speedups = (1 - alpha ** (gammas + 1.0)) / ((1 - alpha) * (gammas * c + 1))
    best = int(np.argmax(speedups))
    return best, float(speedups[best])
