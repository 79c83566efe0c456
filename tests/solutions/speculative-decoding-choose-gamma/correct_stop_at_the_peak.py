import math


def choose_gamma(alpha, c, max_gamma):
    """f rises to one peak and then falls (tokens are concave in gamma, the cost linear)."""

    def f(gamma):
        if math.isclose(alpha, 1.0, rel_tol=0.0, abs_tol=0.0):
            return (gamma + 1) / (gamma * c + 1)
        return (1 - alpha ** (gamma + 1)) / ((1 - alpha) * (gamma * c + 1))

    gamma = 0
    while gamma < max_gamma and f(gamma + 1) > f(gamma):
        gamma += 1
    return gamma, f(gamma)
