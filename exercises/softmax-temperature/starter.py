def softmax_with_temperature(logits, temperature):
    """The probabilities of a softmax of ``logits / temperature``.

    logits:      list of V >= 1 finite floats (one score per token id)
    temperature: float > 0; below 1 sharpens the distribution, above 1 flattens it

    Returns a new list of V floats that add up to 1, in the order of ``logits``.
    """
    # TODO: subtract the largest logit, divide by the temperature, exponentiate, and divide
    # each weight by their total. Compute in float64 and leave ``logits`` unchanged.
    return [0.0 for _ in logits]
