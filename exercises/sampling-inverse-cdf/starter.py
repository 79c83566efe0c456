def sample_token(probs, rng):
    """Draw one token id from the distribution ``probs`` by inverse-CDF sampling.

    probs: list of V floats >= 0 that add up to 1 (up to round-off)
    rng:   a NumPy random Generator; draw exactly one number with rng.random()

    Returns the token id (an int from 0 to V - 1) whose slice of [0, 1) holds the draw.
    """
    # TODO: draw u once; add the probabilities up in token order and return the first token
    # whose running sum is above u. If round-off leaves every sum at or below u, return the
    # last token with a probability above 0.
    return -1
