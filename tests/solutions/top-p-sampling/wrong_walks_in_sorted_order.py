# expect: wrong_answer worked example: top_p = 0.8 keeps tokens 3, 1 and 4; u = 0.5 falls in token 3's piece
# message: running sums [0, 0.3529, 0.3529, 0.8235, 1]; u falls in [0.3529, 0.8235): token 3
def top_p_sample(probs, top_p, rng):
    order = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    nucleus = []
    covered = 0.0
    for i in order:
        nucleus.append(i)
        covered += probs[i]
        if covered >= top_p:
            break
    u = rng.random()
    running = 0.0
    for i in nucleus:  # most likely first: the same law, another token for this u
        running += probs[i] / covered
        if u < running:
            return i
    return nucleus[-1]
