# Two outputs written into views of one buffer, and an input that aliases an output.
# expect: compiled split_write
import numpy as np
from _probe import snapshot, call

buf = np.zeros(10)
first, second = buf[:5], buf[5:]
overlap = buf[3:8]


def split_write(x):
    np.multiply(x, 2, out=first)
    np.add(first, overlap, out=second)
    overlap[:] = overlap[::-1]
    return buf.sum()


for i in range(25):
    call(f"sw{i}", split_write, np.arange(5.0) + i)
snapshot("buf", (buf, first, second, overlap))
