def sample_token(probs, rng):
    """Reference: inverse-CDF sampling with one draw, walking the running sums by id."""
    require_distribution(probs)
    u = rng.random()  # exactly one number, drawn before the walk
    running = 0.0
    last_positive = None
    for token, p in enumerate(probs):
        running += p
        if u < running:  # token i owns [c_(i-1), c_i): a draw on a boundary goes to the next
            return token
        if p > 0:
            last_positive = token
    # Round-off left every running sum at or below u: the last token that can be drawn.
    return last_positive


def require_distribution(probs):
    """A learner's own input (Try your own input) that is not a distribution gets a clear
    refusal instead of a token: the rule is defined for V >= 1 probabilities >= 0 adding up
    to 1 (within round-off)."""
    if len(probs) == 0:
        raise ValueError("probs is empty: a distribution needs at least one token")
    if any(not p >= 0 for p in probs):
        raise ValueError("probs holds a negative number: probabilities are >= 0")
    total = sum(probs)
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"probs adds up to {total!r}, not 1: it must be a distribution")
