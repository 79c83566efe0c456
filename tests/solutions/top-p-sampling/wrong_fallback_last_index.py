# expect: wrong_answer round-off leaves the last running sum below u: the last token of positive probability (9), not the last index (10)
# message: no running sum exceeds u, so the last token of probability above 0: token 9
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
    for i in range(len(probs)):
        if i in nucleus:
            running += probs[i] / mass
            if u < running:
                return i
    return len(probs) - 1  # round-off: the last index, which may be a token of probability 0
