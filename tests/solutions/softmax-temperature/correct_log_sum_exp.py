import math


def softmax_with_temperature(logits, temperature):
    scaled = [x / temperature for x in logits]
    m = max(scaled)
    log_total = m + math.log(sum(math.exp(z - m) for z in scaled))
    return [math.exp(z - log_total) for z in scaled]
