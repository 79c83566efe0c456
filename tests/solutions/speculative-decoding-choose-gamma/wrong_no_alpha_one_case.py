# expect: runtime_error alpha = 1: every draft is kept (the closed form divides by zero)
# message: ZeroDivisionError
def choose_gamma(alpha, c, max_gamma):
    best_gamma, best_speedup = 0, 1.0
    for gamma in range(1, max_gamma + 1):
        speedup = (1 - alpha ** (gamma + 1)) / ((1 - alpha) * (gamma * c + 1))
        if speedup > best_speedup:
            best_gamma, best_speedup = gamma, speedup
    return best_gamma, best_speedup
