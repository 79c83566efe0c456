# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: speedup: you returned 3.092, the reference 3.0920795428571433 (off by 8.0e-5, relative 2.6e-5; the tolerance is 1e-9 relative)
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, round(best_speedup, 3)  # rounding is for printing, not for returning
