# expect: wrong_answer worked example: u = 0.62 falls in [0.5, 0.8), token 1
# message: running sums over probs [0.5, 0.8, 1]; u falls in [0.5, 0.8): token 1
def sample_token(probs, rng):
    u = rng.random()
    total = 0.0
    for i in reversed(range(len(probs))):  # the pieces laid out from the last token down
        total += probs[i]
        if u < total:
            return i
    return max(i for i, p in enumerate(probs) if p > 0)
