# A branch on a `training` flag that flips after the function has been compiled.
# expect: compiled Dropoutish.forward
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(1)
masks = (rng.random_sample((30, 4, 5)) > 0.3).astype(np.float64)


class Dropoutish:
    def __init__(self):
        self.training = True
        self.W = rng.standard_normal((5, 5))

    def forward(self, x, mask):
        h = x @ self.W
        if self.training:
            h = h * mask / 0.7
        else:
            h = h * 1.0
        return np.maximum(h, 0.0)


net = Dropoutish()
x = rng.standard_normal((4, 5))
for i in range(30):
    if i == 22:
        net.training = False   # flips after compilation
    if i == 27:
        net.training = 1       # truthy, but an int now
    call(f"forward{i}", net.forward, x, masks[i])
snapshot("net", net)
