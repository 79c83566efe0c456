def choose_gamma(alpha, c, max_gamma):
    """Choose how many tokens the draft model should propose per speculative decoding step.

    alpha:     the probability that the target accepts a drafted token (0 <= alpha <= 1)
    c:         the cost of one draft-model pass, in units of one target-model pass (c >= 0)
    max_gamma: the largest draft length allowed (an int >= 0)

    Returns a tuple (gamma, speedup): the int gamma in 0..max_gamma with the largest expected
    speedup (the smaller gamma on a tie), and that speedup as a float.
    """
    # TODO: for each gamma, the expected tokens per step divided by the cost of the step.
    return 0, 0.0
