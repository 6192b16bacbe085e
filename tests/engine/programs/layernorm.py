# Layer normalisation with mean/var/std over axes, keepdims and a float32 variant.
# expect: compiled layernorm
import numpy as np
from _probe import call


def layernorm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps)
    return y * gamma + beta, x.std(axis=0), x.var(ddof=1)


for i in range(25):
    x = np.sin(np.arange(24.0) * (i + 1)).reshape(2, 3, 4) * 10
    call(f"ln{i}", layernorm, x, np.ones(4), np.zeros(4))
    call(f"ln32_{i}", layernorm, x.astype(np.float32), np.ones(4, np.float32),
         np.zeros(4, np.float32))
