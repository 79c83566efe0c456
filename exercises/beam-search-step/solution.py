def beam_search_step(beams, log_probs, beam_width):
    """Reference: every beam extended by every token, one pool, the beam_width best first."""
    require_input(beams, log_probs, beam_width)
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(len(log_probs[b])):
            candidates.append((score + float(log_probs[b][v]), b, v))
    # Best first; equal scores keep the lower beam, then the lower token.
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    return [(list(beams[b][0]) + [v], score) for score, b, v in candidates[:beam_width]]


def require_input(beams, log_probs, beam_width):
    """A learner's own input (Try your own input) that breaks the contract gets a sentence
    naming the problem instead of an answer."""
    if not isinstance(beams, list) or len(beams) == 0:
        raise ValueError("beams must be a list of at least one beam [tokens, score]")
    for b, beam in enumerate(beams):
        if not (isinstance(beam, list) and len(beam) == 2 and isinstance(beam[0], list)):
            raise ValueError(f"beams[{b}] must be a two-item list [tokens, score]")
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in beam[0]):
            raise ValueError(f"beams[{b}][0] must be a list of int token ids")
        score = beam[1]
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise ValueError(f"beams[{b}][1] must be a number, the beam's log-probability")
    if log_probs.ndim != 2 or log_probs.shape[0] != len(beams) or log_probs.shape[1] == 0:
        raise ValueError(
            f"log_probs has shape {tuple(log_probs.shape)}: it needs one row per beam "
            f"({len(beams)}) and at least one token"
        )
    if (log_probs > 0).any():
        raise ValueError("log_probs holds a number above 0: log-probabilities are <= 0")
