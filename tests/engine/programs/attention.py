# Scaled dot-product attention with a causal mask, batched with 3-d matmul.
# expect: compiled attention
import numpy as np
from _probe import call


def attention(q, k, v, causal):
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tri(n, dtype=bool), scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=-1, keepdims=True)
    return w @ v


for i in range(25):
    n = 4 if i < 22 else 5
    q = np.sin(np.arange(2 * n * 3.0) + i).reshape(2, n, 3)
    k = np.cos(np.arange(2 * n * 3.0) - i).reshape(2, n, 3)
    call(f"att{i}", attention, q, k, q + k, i % 2 == 0)
