# expect: wrong_answer worked example: two beams in one pool, each score is the beam's plus the token's
# message: beam 1: you returned [[4, 2, 2], -2.0] but the reference returned [[4, 7, 0], -1.5]
def beam_search_step(beams, log_probs, beam_width):
    kept = []
    for b, (tokens, score) in enumerate(beams):
        mine = [(tokens + [v], float(score + log_probs[b, v])) for v in range(log_probs.shape[1])]
        mine.sort(key=lambda c: -c[1])
        kept.extend(mine[:beam_width])  # each beam's best, one list after the other: no merge
    return kept
