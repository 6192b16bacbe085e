# Footgun: a list/dict structure assumed fixed (length, keys) changing between calls.
# expect: compiled total
import numpy as np
from _probe import call


def total(layers, cfg):
    s = 0.0
    for w in layers:
        s += w.sum() * cfg["scale"]
    return s, len(layers), sorted(cfg)


layers = [np.ones(2), np.ones(3)]
cfg = {"scale": 1.0}
for i in range(30):
    if i == 21:
        layers.append(np.full(2, 5.0))
    if i == 24:
        cfg["extra"] = True
    if i == 26:
        layers[0] = np.zeros(7)
    if i == 28:
        del cfg["scale"]
    call(f"total{i}", total, layers, cfg)
