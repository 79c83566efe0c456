# expect: wrong_answer one beam from the start: the 2 best of 4 tokens, best first
# message: your function modified its argument beams (it was [[[], 0.0]], afterwards [[[1, 3], 0.0]])
def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            candidates.append((float(score + log_probs[b, v]), b, v))
    candidates.sort(key=lambda c: -c[0])
    kept = []
    for s, b, v in candidates[:beam_width]:
        tokens = beams[b][0]
        tokens.append(v)  # the caller's list, shared by every winner of beam b
        kept.append((tokens, s))
    return kept
