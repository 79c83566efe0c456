# expect: wrong_answer worked example: u = 0.62 falls in [0.5, 0.8), token 1
# message: asked for random number 2, more than this case provides (it had drawn 0.62)
def sample_token(probs, rng):
    rng.random()  # a warm-up draw: the generator's stream moves on by one
    u = rng.random()
    total = 0.0
    for i, p in enumerate(probs):
        total += p
        if u < total:
            return i
    return max(i for i, p in enumerate(probs) if p > 0)
