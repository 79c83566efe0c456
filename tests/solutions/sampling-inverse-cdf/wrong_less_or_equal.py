# expect: wrong_answer tie: u = 0.5 is exactly a running sum, so it belongs to the next token
# message: draw 1 gave u = 0.5; running sums over probs [0.5, 1]; u falls in [0.5, 1): token 1
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
