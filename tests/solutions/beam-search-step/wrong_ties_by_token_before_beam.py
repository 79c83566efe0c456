# expect: wrong_answer tie across beams: equal scores keep the lower beam index first
# message: beam 0: you returned [[2, 0], -1.5] but the reference returned [[1, 2], -1.5]
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append((float(score + log_probs[b, v]), b, v))
    candidates.sort(key=lambda c: (-c[0], c[2], c[1]))  # token id before beam index
    return [(beams[b][0] + [v], s) for s, b, v in candidates[:beam_width]]
