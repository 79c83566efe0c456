import numpy as np

# Exact types only: the learner's result is checked before the driver touches it further.
INTEGERS = {int} | {np.dtype(code).type for code in "bBhHiIlLqQ"}


def drive(step, Generator, p, q, trials, seed):
    """Run the learner's step ``trials`` times, drafts drawn from q; count what comes out.

    Trusted driver of the distribution check, run in the learner's confined child. Drafts come
    from a generator of their own, so the learner's draws never shift them; the learner gets
    the judge's counting generator, one stream across all trials. Returns counts only: the host
    does the statistics.
    """
    gamma, vocabulary = q.shape
    draft_rng = np.random.default_rng(seed)
    drafts = np.stack(
        [
            np.minimum(
                np.searchsorted(np.cumsum(q[i]), draft_rng.random(trials), side="right"),
                vocabulary - 1,
            )
            for i in range(gamma)
        ],
        axis=1,
    ).tolist()
    rng = Generator(seed + 1)
    first = [0] * vocabulary
    lengths = [0] * (gamma + 1)
    # A first token other than the draft's is a replacement: a correct step rejects only a
    # token with p < q (p / q >= 1 accepts at every draw) and draws the replacement from the
    # residual max(p[0] - q[0], 0), which is 0 wherever p <= q. Either, seen once, is certain.
    no_residual = (p[0] <= q[0]).tolist()
    always_accepted = ((p[0] >= q[0]) & (q[0] > 0)).tolist()
    outside = 0
    first_outside = None
    for trial in range(trials):
        drawn = rng.draws
        proposed = drafts[trial][0]  # read first: the step gets the list itself, and may edit it
        tokens = step(p.copy(), q.copy(), drafts[trial], rng)
        if type(tokens) is not list:
            return {"invalid": {"trial": trial + 1, "reason": "not_list"}}
        if not 1 <= len(tokens) <= gamma + 1:
            return {"invalid": {"trial": trial + 1, "reason": "length", "length": len(tokens)}}
        token = tokens[0]
        if type(token) not in INTEGERS:
            return {"invalid": {"trial": trial + 1, "reason": "token"}}
        if not 0 <= token < vocabulary:
            return {"invalid": {"trial": trial + 1, "reason": "range", "token": int(token)}}
        if rng.draws == drawn:
            # Every step draws at least once (its final sample). A step that draws nothing is a
            # schedule, which can match any histogram: the counts would say nothing about it.
            return {"invalid": {"trial": trial + 1, "reason": "no_draw"}}
        if token != proposed and (no_residual[token] or always_accepted[proposed]):
            outside += 1
            if first_outside is None:
                first_outside = {"trial": trial + 1, "draft": proposed, "token": int(token)}
        first[int(token)] += 1
        lengths[len(tokens) - 1] += 1
    return {
        "trials": trials,
        "first": first,
        "lengths": lengths,
        "draws": rng.draws,
        "outside": outside,
        "first_outside": first_outside,
    }
