# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: speedup: you returned 4.32891136, the reference 3.0920795428571433 (off by 1.24
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup, best_tokens = 0, 1.0, 1.0
    for gamma in range(1, max_gamma + 1):
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup, best_tokens = gamma, speedup, tokens
    return best_gamma, best_tokens  # the tokens per step, not the speedup
