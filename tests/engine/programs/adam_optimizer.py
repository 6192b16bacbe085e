# Adam: moment estimates in dicts, bias correction from a Python int step count.
# expect: compiled Adam.update
import numpy as np
from _probe import snapshot, call


class Adam:
    def __init__(self, lr=0.01, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.m, self.v, self.t = {}, {}, 0

    def update(self, params, grads):
        self.t += 1
        for k in params:
            if k not in self.m:
                self.m[k] = np.zeros_like(params[k])
                self.v[k] = np.zeros_like(params[k])
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * grads[k]
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * grads[k] ** 2
            mhat = self.m[k] / (1 - self.b1 ** self.t)
            vhat = self.v[k] / (1 - self.b2 ** self.t)
            params[k] -= self.lr * mhat / (np.sqrt(vhat) + self.eps)
        return self.t


opt = Adam()
params = {"w": np.ones((2, 3)), "b": np.zeros(3)}
for i in range(30):
    grads = {"w": params["w"] * 2 - 1, "b": params["b"] + 0.5}
    call(f"adam{i}", opt.update, params, grads)
snapshot("opt", opt)
snapshot("params", params)
