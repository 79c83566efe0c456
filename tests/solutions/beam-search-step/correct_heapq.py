import heapq


def beam_search_step(beams, log_probs, beam_width):
    pool = (
        (score + float(row[v]), b, v)
        for b, ((_, score), row) in enumerate(zip(beams, log_probs))
        for v in range(len(row))
    )
    best = heapq.nsmallest(beam_width, pool, key=lambda c: (-c[0], c[1], c[2]))
    return [(beams[b][0] + [v], score) for score, b, v in best]
