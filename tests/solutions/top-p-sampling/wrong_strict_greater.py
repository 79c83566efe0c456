# expect: wrong_answer tie: 0.5 + 0.25 equals top_p = 0.75 exactly, so two tokens are enough (>=)
# message: 0.5 + 0.25 = 0.75 >= top_p = 0.75
def top_p_sample(probs, top_p, rng):
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    nucleus = []
    covered = 0.0
    for i in order:
        nucleus.append(i)
        covered += probs[i]
        if covered > top_p:  # an exact reach goes on to one more token
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
