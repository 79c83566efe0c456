# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: gamma must be an int, got numpy.float64 (8.0)
import numpy as np


def choose_gamma(alpha, c, max_gamma):
    gammas = np.linspace(0, max_gamma, max_gamma + 1)  # floats 0.0, 1.0, ...
    if alpha == 1:
        tokens = gammas + 1
    else:
        tokens = (1 - alpha ** (gammas + 1)) / (1 - alpha)
    speedups = tokens / (gammas * c + 1)
    best = np.argmax(speedups)
    return gammas[best], speedups[best]
