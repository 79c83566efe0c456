def beam_search_step(beams, log_probs, beam_width):
    """Reference: every beam extended by every token, one pool, the beam_width best first."""
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(len(log_probs[b])):
            candidates.append((score + float(log_probs[b][v]), b, v))
    # Best first; equal scores keep the lower beam, then the lower token.
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    return [(list(beams[b][0]) + [v], score) for score, b, v in candidates[:beam_width]]

