def top_p_sample(probs, top_p, rng):
    """Reference: the shortest prefix of the tokens by probability (ties to the lower id) that
    reaches top_p, renormalised, then the inverse-CDF rule over every token id, one draw."""
    require_distribution(probs)
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


def require_distribution(probs):
    """A learner's own input (Try your own input) that is not a distribution gets a clear
    refusal instead of a token: the rule is defined for V >= 1 probabilities >= 0 adding up
    to 1 (within round-off)."""
    if len(probs) == 0:
        raise ValueError("probs is empty: a distribution needs at least one token")
    if any(not p >= 0 for p in probs):
        raise ValueError("probs holds a negative number: probabilities are >= 0")
    total = sum(probs)
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"probs adds up to {total!r}, not 1: it must be a distribution")
