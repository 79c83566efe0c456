# expect: wrong_answer worked example: alpha = 0.8, c = 0.05, at most 16 drafts
# message: gamma: you returned 16 but the reference returned 8
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_tokens = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        tokens = gamma + 1 if alpha == 1 else (1 - alpha ** (gamma + 1)) / (1 - alpha)
        if tokens > best_tokens:  # more tokens per step, whatever the step costs
            best_gamma, best_tokens = gamma, tokens
    return best_gamma, best_tokens / (best_gamma * c + 1)
