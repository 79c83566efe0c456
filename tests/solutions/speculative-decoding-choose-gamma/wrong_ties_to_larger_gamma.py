# expect: wrong_answer alpha = 0 and c = 0: every length ties at 1, so the smallest gamma wins
# message: gamma: you returned 6 but the reference returned 0
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup >= best_speedup:  # a tie moves to the longer draft
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
