def sample_token(probs, rng):
    u = rng.random()
    total = 0.0
    fallback = 0
    for i, p in enumerate(probs):
        total += p
        if u < total:
            return i
        if p > 0:
            fallback = i
    return fallback
