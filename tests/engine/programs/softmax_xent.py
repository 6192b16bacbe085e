# Numerically stable softmax cross-entropy with overflow-prone logits.
# expect: compiled xent
import numpy as np
from _probe import call


def xent(logits, labels):
    z = logits - logits.max(axis=-1, keepdims=True)
    logsum = np.log(np.exp(z).sum(axis=-1))
    picked = z[np.arange(len(labels)), labels]
    return (logsum - picked).mean(), np.exp(z - logsum[:, None])


for i in range(25):
    logits = np.linspace(-800, 800, 15).reshape(5, 3) * ((i % 5) - 2) / 3
    labels = np.array([0, 1, 2, 1, 0]) if i % 2 else np.array([2, 2, 2, 2, 2])
    call(f"xent{i}", xent, logits, labels)
