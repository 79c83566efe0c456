# expect: wrong_answer alpha = 1: every draft is kept (the closed form divides by zero)
# message: speedup: you returned 5.0, the reference 5.5 (off by 0.5, relative 9.1e-2
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        if alpha == 1:
            tokens = gamma  # the drafts only: the target's own token is missing
        else:
            tokens = (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
