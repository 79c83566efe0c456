import numpy as np

# `sample(probs, rng)` is already defined for you (no import needed): it returns one token id
# drawn from the distribution `probs`, using exactly one rng.random() call.


def speculative_step(p, q, draft, rng):
    """One speculative decoding step: verify the draft, then resample or add a bonus token.

    p:     array (gamma + 1, V), the target model's distribution at each drafted position,
           plus one more row for the position after the last drafted token
    q:     array (gamma, V), the draft model's distribution at each drafted position
    draft: list of gamma ints, the proposed token ids
    rng:   a NumPy random Generator; draw from it with rng.random()

    Returns the list of new token ids (between 1 and gamma + 1 of them).
    """
    # TODO: accept test for each proposal in order (one rng.random() per test); on the first
    # rejection append a token drawn from the normalised residual and stop; if every proposal
    # is accepted, append a bonus token drawn from the last row of p.
    return []
