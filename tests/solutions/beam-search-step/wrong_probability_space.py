# expect: wrong_answer scores near -800, where exp() underflows to 0: the sums stay in log space
# message: but the reference returned [[5, 9, 2, 0], -800.75]
import math


def beam_search_step(beams, log_probs, beam_width):
    candidates = []
    for b, (tokens, score) in enumerate(beams):
        for v in range(log_probs.shape[1]):
            # Multiplying probabilities: exp(-800) is 0 in float64, and log(0) is -inf.
            p = math.exp(score) * math.exp(log_probs[b, v])
            candidates.append((tokens + [v], math.log(p) if p > 0 else -math.inf))
    candidates.sort(key=lambda c: c[1], reverse=True)
    return candidates[:beam_width]
