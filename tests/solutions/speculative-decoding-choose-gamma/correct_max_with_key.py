def expected_tokens(alpha, gamma):
    if alpha == 1:
        return gamma + 1
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def choose_gamma(alpha, c, max_gamma):
    def speedup(gamma):
        return expected_tokens(alpha, gamma) / (gamma * c + 1)

    # max() keeps the first of equal keys, so a tie goes to the smaller gamma
    gamma = max(range(max_gamma + 1), key=speedup)
    return gamma, float(speedup(gamma))
