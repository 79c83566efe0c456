def top_p_sample(probs, top_p, rng):
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
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
    last = nucleus[0]
    for i in range(len(probs)):
        if i in nucleus:
            running += probs[i] / mass
            if u < running:
                return i
            if probs[i] > 0:
                last = i
    return last
