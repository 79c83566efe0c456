import numpy as np


def speculative_decode(draft_probs, target_probs, draft_tokens, target_dist_next=None):
    """Verify K drafted tokens against the target model.

    draft_probs:      K floats, q(x_i): the draft model's probability of each drafted token
    target_probs:     K floats, p(x_i): the target model's probability of the same tokens
    draft_tokens:     K ints, the drafted token ids x_0 .. x_{K-1}
    target_dist_next: not used in this exercise (the bonus token is the follow-up exercise)

    Returns a tuple (accepted_tokens, num_accepted): the kept prefix of draft_tokens
    as a list of ints, and its length.
    """
    np.random.seed(42)  # keep this line: the expected outputs use this seed

    # TODO: examine the tokens in order; one np.random.uniform() draw per examined token;
    # keep the token when the draw is strictly below its acceptance probability,
    # otherwise stop.
    return [], 0
