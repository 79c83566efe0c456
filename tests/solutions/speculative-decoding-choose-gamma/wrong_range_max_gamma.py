# expect: wrong_answer c = 0: drafting is free, so take every token allowed
# message: gamma: you returned 11 but the reference returned 12
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(max_gamma):  # stops one short of max_gamma
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
