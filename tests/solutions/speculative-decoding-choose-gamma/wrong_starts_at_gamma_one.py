# expect: wrong_answer a costly draft: not drafting (gamma = 0) beats every draft length
# message: gamma: you returned 1 but the reference returned 0
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = None, -1.0
    for gamma in range(1, max_gamma + 1):  # never considers not drafting
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    if best_gamma is None:
        return 0, 1.0
    return best_gamma, best_speedup
