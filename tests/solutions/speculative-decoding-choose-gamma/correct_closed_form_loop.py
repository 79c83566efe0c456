def choose_gamma(alpha, c, max_gamma):
    best = (0, 1.0)
    for gamma in range(max_gamma + 1):
        if alpha == 1:
            tokens = gamma + 1
        else:
            tokens = (1 - alpha ** (gamma + 1)) / (1 - alpha)
        speedup = tokens / (1 + gamma * c)
        if speedup > best[1]:
            best = (gamma, speedup)
    return best
