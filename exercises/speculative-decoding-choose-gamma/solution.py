def choose_gamma(alpha, c, max_gamma):
    """Reference: the draft length in 0..max_gamma with the best expected speedup, and that speedup."""
    best_gamma, best_speedup = 0, 1.0  # gamma = 0 is plain decoding: one token per target pass
    for gamma in range(1, max_gamma + 1):
        if alpha == 1:
            tokens = gamma + 1  # every draft is kept, plus the target's own token
        else:
            tokens = (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (gamma * c + 1)  # one target pass plus gamma draft passes
        if speedup > best_speedup:  # strictly better only: a tie keeps the smaller gamma
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, float(best_speedup)
