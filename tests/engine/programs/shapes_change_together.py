# Minibatches whose short last batch changes two arguments' shapes at once:
# both dims relax on the miss, so one symbolic specialisation serves every
# batch size instead of one static specialisation per size.
# expect: compiled batch_loss
import numpy as np
from _probe import call


def batch_loss(w, xb, yb):
    p = xb * w[0] + 1.0
    return ((p[:, 0] - yb) ** 2).mean()


rng = np.random.default_rng(3)
X = rng.random((100, 5))
y = rng.random(100)
w = rng.random(5)
for epoch in range(4):
    for k in range(0, 100, 16):
        call(f"e{epoch}k{k}", batch_loss, w, X[k:k + 16], y[k:k + 16])
