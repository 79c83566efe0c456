def choose_gamma(alpha, c, max_gamma):
    tokens = 1.0  # gamma = 0: the target's own token
    kept = 1.0  # probability that the first gamma drafts all survive
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        kept *= alpha
        tokens += kept
        speedup = tokens / (gamma * c + 1)
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
