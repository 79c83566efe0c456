def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b in range(len(beams)):
        tokens, score = beams[b]
        for v in range(log_probs.shape[1]):
            candidates.append((tokens + [v], score + log_probs[b, v]))
    # sorted() is stable: listed beam by beam, token by token, equal scores keep that order.
    candidates = sorted(candidates, key=lambda c: c[1], reverse=True)
    return candidates[:beam_width]
