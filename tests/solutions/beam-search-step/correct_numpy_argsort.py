import numpy as np


def beam_search_step(beams, log_probs, beam_width):
    scores = np.array([score for _, score in beams], dtype=float)
    total = scores[:, None] + log_probs  # (B, V): every candidate's score
    vocabulary = total.shape[1]
    # Row-major flattening lists beam 0's tokens first, so a stable sort keeps the tie rule.
    order = np.argsort(-total, axis=None, kind="stable")[:beam_width]
    kept = []
    for index in order:
        b, v = divmod(int(index), vocabulary)
        kept.append((list(beams[b][0]) + [v], float(total[b, v])))
    return kept
