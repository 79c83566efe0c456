# expect: wrong_answer worked example: top_p = 0.8 keeps tokens 3, 1 and 4; u = 0.5 falls in token 3's piece
# message: the nucleus {3, 1, 4} (by probability, 0.4 + 0.3 + 0.15 = 0.85 >= top_p = 0.8)
def top_p_sample(probs, top_p, rng):
    nucleus = []
    covered = 0.0
    for i, p in enumerate(probs):  # the first tokens by id, whatever their probability
        nucleus.append(i)
        covered += p
        if covered >= top_p:
            break
    u = rng.random()
    running = 0.0
    for i in nucleus:
        running += probs[i] / covered
        if u < running:
            return i
    return max(i for i in nucleus if probs[i] > 0)
