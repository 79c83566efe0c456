# expect: wrong_answer the token that crosses top_p is kept
# message: the nucleus {1, 0} (by probability, 0.5 + 0.25 = 0.75 >= top_p = 0.6)
def top_p_sample(probs, top_p, rng):
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    nucleus = [order[0]]
    covered = probs[order[0]]
    for i in order[1:]:
        if covered + probs[i] > top_p:  # stops before the token that would cross top_p
            break
        nucleus.append(i)
        covered += probs[i]
    u = rng.random()
    running = 0.0
    for i in range(len(probs)):
        if i in nucleus:
            running += probs[i] / covered
            if u < running:
                return i
    return max(i for i in nucleus if probs[i] > 0)
