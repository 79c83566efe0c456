# expect: wrong_answer worked example: u = 0.62 falls in [0.5, 0.8), token 1
# message: asked for random number 2, more than this case provides (it had drawn 0.62)
def sample_token(probs, rng):
    # Sequential sampling: stop at token i with probability p_i / (what is left). Right in
    # distribution, but one draw per token examined, so the same numbers give another token.
    left = 1.0
    last = 0
    for i, p in enumerate(probs):
        if p > 0:
            last = i
        if left <= 0:
            break
        if rng.random() < p / left:
            return i
        left -= p
    return last
