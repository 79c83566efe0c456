# expect: runtime_error max_gamma = 0: no drafting allowed, however good the draft
# message: argmax
import numpy as np


def choose_gamma(alpha, c, max_gamma):
    gammas = np.arange(1, max_gamma + 1)  # gamma = 0 left out, to be added back
    tokens = gammas + 1.0 if alpha == 1 else (1 - alpha ** (gammas + 1.0)) / (1 - alpha)
    speedups = tokens / (gammas * c + 1)
    best = int(np.argmax(speedups))
    if speedups[best] <= 1:
        return 0, 1.0
    return int(gammas[best]), float(speedups[best])
