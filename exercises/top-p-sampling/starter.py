def top_p_sample(probs, top_p, rng):
    """Draw one token id from the nucleus: the most likely tokens that cover top_p.

    probs: list of V floats >= 0 that add up to 1
    top_p: float, 0 < top_p <= 1, the share of the probability to keep
    rng:   a NumPy random Generator; draw exactly one number with rng.random()

    Returns the token id (an int from 0 to V - 1).
    """
    # TODO: order the tokens by probability (ties by the lower id) and keep the shortest
    # prefix whose sum reaches top_p; renormalise the kept tokens (0 for the others); then
    # draw u once and return the first token id whose running sum is above u.
    return -1
