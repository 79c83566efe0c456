# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: your return value must be a tuple, got list
def choose_gamma(alpha, c, max_gamma):
    best = [0, 1.0]
    for gamma in range(1, max_gamma + 1):
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best[1]:
            best = [gamma, speedup]
    return best
