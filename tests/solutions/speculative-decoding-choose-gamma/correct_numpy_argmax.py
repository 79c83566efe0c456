import numpy as np


def choose_gamma(alpha, c, max_gamma):
    gammas = np.arange(max_gamma + 1)
    if alpha == 1:
        tokens = gammas + 1.0
    else:
        tokens = (1 - alpha ** (gammas + 1.0)) / (1 - alpha)
    speedups = tokens / (gammas * c + 1)
    best = np.argmax(speedups)  # the first maximum: ties go to the smaller gamma
    return gammas[best], speedups[best]
