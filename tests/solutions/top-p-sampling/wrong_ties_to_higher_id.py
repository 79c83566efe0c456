# expect: wrong_answer equal probabilities at the cut: the lower ids are kept (1 and 2, not 2 and 3)
# message: the nucleus {1, 2} (by probability, 0.25 + 0.25 = 0.5 >= top_p = 0.5)
def top_p_sample(probs, top_p, rng):
    # reverse=True on (p, id): equal probabilities come out higher id first.
    order = sorted(range(len(probs)), key=lambda i: (probs[i], i), reverse=True)
    nucleus = []
    covered = 0.0
    for i in order:
        nucleus.append(i)
        covered += probs[i]
        if covered >= top_p:
            break
    mass = sum(probs[i] for i in nucleus)
    u = rng.random()
    running = 0.0
    for i in range(len(probs)):
        if i in nucleus:
            running += probs[i] / mass
            if u < running:
                return i
    return max(i for i in nucleus if probs[i] > 0)
