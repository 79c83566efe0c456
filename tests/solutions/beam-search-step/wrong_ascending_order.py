# expect: wrong_answer one beam from the start: the 2 best of 4 tokens, best first
# message: beam 0: you returned [[3], -0.75] but the reference returned [[1], -0.25]
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append((tokens + [v], float(score + log_probs[b, v])))
    candidates.sort(key=lambda c: c[1])  # ascending: the worst first
    return candidates[-beam_width:]  # the right beams, in the wrong order
