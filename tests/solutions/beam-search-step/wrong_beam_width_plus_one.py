# expect: wrong_answer one beam from the start: the 2 best of 4 tokens, best first
# message: beam 2: you returned [[0], -1.5], but the reference returns only 2 beams
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append((tokens + [v], float(score + log_probs[b, v])))
    candidates.sort(key=lambda c: -c[1])
    return candidates[: beam_width + 1]  # one past the last kept place
