# expect: wrong_answer one beam from the start: the 2 best of 4 tokens, best first
# message: item 0 of your return value must be a tuple, got list
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append([tokens + [v], float(score + log_probs[b, v])])  # a list
    candidates.sort(key=lambda c: -c[1])
    return candidates[:beam_width]
