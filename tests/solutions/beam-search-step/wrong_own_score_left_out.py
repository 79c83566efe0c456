# expect: wrong_answer worked example: two beams in one pool, each score is the beam's plus the token's
# message: beam 0: you returned [[4, 7, 0], -0.25] but the reference returned [[4, 2, 1], -1.0]
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append((tokens + [v], float(log_probs[b, v])))  # the beam's score forgotten
    candidates.sort(key=lambda c: -c[1])
    return candidates[:beam_width]
