class DraftPlan:
    def __init__(self, alpha, c):
        self.alpha = alpha
        self.c = c

    def cost(self, gamma):
        return 1 + self.c * gamma  # one target pass and gamma draft passes

    def tokens(self, gamma):
        a = self.alpha
        return gamma + 1 if a == 1 else (1 - a ** (gamma + 1)) / (1 - a)

    def speedup(self, gamma):
        return self.tokens(gamma) / self.cost(gamma)


def choose_gamma(alpha, c, max_gamma):
    plan = DraftPlan(alpha, c)
    table = [plan.speedup(g) for g in range(max_gamma + 1)]
    best = table.index(max(table))
    print(f"alpha={alpha} c={c}: best gamma {best} of {max_gamma}, f = {table[best]:.4f}")
    return best, table[best]
