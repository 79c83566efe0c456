def beam_search_step(beams, log_probs, beam_width):
    """One step of beam search: extend every beam by every token and keep the best.

    beams:      list of B beams, each a list [tokens, score]: the token ids so far (a list of
                ints) and the beam's log-probability (a float)
    log_probs:  numpy array of shape (B, V): log_probs[b, v] is the log-probability of token v
                after beam b
    beam_width: int >= 1, how many candidates to keep

    Returns a list of at most beam_width tuples (tokens, score), best score first; each tokens
    is a new list: the beam's tokens followed by the new token.
    """
    # TODO: score every candidate (beam b, token v) as score_b + log_probs[b, v], put them all
    # in one pool, order it best first (ties: lower b, then lower v) and keep beam_width.
    return []
