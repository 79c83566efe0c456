import math


def top_k_sample(logits, k, temperature, rng):
    """Draw one token id from the k most likely tokens, softened by a temperature.

    logits:      list of V floats, the model's scores for each token id
    k:           int >= 1, how many tokens to keep (k >= V keeps every token)
    temperature: float > 0; the kept tokens get softmax(logits / temperature)
    rng:         a NumPy random Generator; draw exactly one number with rng.random()

    Returns the token id (an int from 0 to V - 1).
    """
    # TODO: keep the k largest logits (a tie at the cut keeps the lower id); give the kept
    # tokens the softmax of logits / temperature over the kept set and every other token 0;
    # then draw u once and return the first token id whose running sum is above u.
    return -1
