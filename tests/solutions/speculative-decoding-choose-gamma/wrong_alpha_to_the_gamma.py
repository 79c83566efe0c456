# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: gamma: you returned 9 but the reference returned 8
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        # forgets the target's own token: 1 + alpha + ... + alpha^(gamma - 1)
        tokens = gamma if alpha == 1 else (1 - alpha**gamma) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
