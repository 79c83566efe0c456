# expect: wrong_answer tie: u = 0.5 is exactly a running sum, so it belongs to the next token
# message: you returned 0 but the reference returned 1
def sample_token(probs, rng):
    u = rng.random()
    total = 0.0
    last = 0
    for i, p in enumerate(probs):
        total += p
        if u <= total:  # a draw on a boundary goes to the token that ends there
            return i
        if p > 0:
            last = i
    return last
