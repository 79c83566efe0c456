"""The exact law of top-p sampling on an input: the sampler check's expectation (trusted)."""


def law(probs, top_p):
    """The shortest prefix by probability (ties to the lower id) that reaches top_p, each
    kept token's probability divided by the kept total, 0 for the others; by token id."""
    ranked = sorted(range(len(probs)), key=lambda i: (-probs[i], i))
    kept = list(ranked)
    total = 0.0
    for n, i in enumerate(ranked, start=1):
        total += probs[i]
        if total >= top_p:
            kept = ranked[:n]
            break
    mass = sum(probs[i] for i in kept)
    return [probs[i] / mass if i in kept else 0.0 for i in range(len(probs))]
