def top_p_sample(probs, top_p, rng):
    """Reference: the shortest prefix of the tokens by probability (ties to the lower id) that
    reaches top_p, renormalised, then the inverse-CDF rule over every token id, one draw."""
    vocabulary = len(probs)
    ranked = sorted(range(vocabulary), key=lambda i: (-probs[i], i))
    kept = list(ranked)  # if round-off keeps the total below top_p, every token stays
    total = 0.0
    for n, i in enumerate(ranked, start=1):
        total += probs[i]
        if total >= top_p:  # the token that reaches top_p is kept, an exact reach stops here
            kept = ranked[:n]
            break
    mass = sum(probs[i] for i in kept)
    nucleus = [0.0] * vocabulary
    for i in kept:
        nucleus[i] = probs[i] / mass
    u = rng.random()
    running = 0.0
    last_positive = None
    for token, p in enumerate(nucleus):
        running += p
        if u < running:
            return token
        if p > 0:
            last_positive = token
    return last_positive
