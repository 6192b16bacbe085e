# Footgun: non-contiguous and negative-stride views, in and out, including a view
# whose strides change between calls with the same shape.
# expect: compiled blend
import numpy as np
from _probe import snapshot, call

big = np.arange(64.0).reshape(8, 8)


def blend(a, b):
    a *= 0.5
    a += b
    return a.sum(axis=0), a.strides


for i in range(30):
    views = [big[::2, ::2], big[1::2, ::-2], big[:4, :4].T, big[::-2, 1::2], big[2:6, 2:6]]
    a = views[i % len(views)]
    call(f"blend{i}", blend, a, np.full((4, 4), float(i)))
snapshot("big", big)
