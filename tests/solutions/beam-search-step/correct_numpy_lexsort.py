import numpy as np


def beam_search_step(beams, log_probs, beam_width):
    B, V = log_probs.shape
    total = np.array([s for _, s in beams])[:, None] + log_probs
    beam_ids, token_ids = np.meshgrid(np.arange(B), np.arange(V), indexing="ij")
    # lexsort sorts by its last key first: score descending, then beam, then token.
    order = np.lexsort((token_ids.ravel(), beam_ids.ravel(), -total.ravel()))
    return [
        (beams[beam_ids.flat[i]][0] + [token_ids.flat[i]], total.flat[i])
        for i in order[:beam_width]
    ]
