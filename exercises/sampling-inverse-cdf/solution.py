def sample_token(probs, rng):
    """Reference: inverse-CDF sampling with one draw, walking the running sums by id."""
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
