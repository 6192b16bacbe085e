# sum() of generator expressions and of lists, min()/max() of values known only at
# run time: Python's left-to-right addition from int 0 (an empty generator gives 0),
# NumPy's promotion for NumPy scalars, the first of equal values kept, NaN never
# winning a comparison (max(nan, 1.0) is nan, max(1.0, nan) is 1.0), and a result
# whose type depends on the data (min(1.0, np.float64)) whichever operand wins.
# expect: compiled grad_norm, extremes, empty_sums
import numpy as np
from _probe import call


def grad_norm(grads, max_norm):
    total = sum(float((g * g).sum()) for g in grads.values())
    norm = np.sqrt(total)
    scale = min(1.0, max_norm / (norm + 1e-6))
    scalars = sum(g.sum() for g in grads.values())
    firsts = sum([float(g.max()) for g in grads.values()], 0.5)
    return total, norm, scale, scalars, firsts


def extremes(a, b, c):
    # a, b: Python floats; c: a NumPy float64.
    return (max(a, b), min(a, b), max(b, a), min(b, a), max(a, b, a), min(a, b, -a),
            max(c, c * 2.0), min(c, -c), max([a, b]), min(a - b, b - a))


def empty_sums(d, x):
    return sum(float(v.sum()) for v in d.values()), sum(v for v in ()), x + sum(
        float(v.min()) for v in d.values())


grads = {"W": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
         "b": np.full(4, 0.25, np.float32), "v": np.arange(5, dtype=np.float32)}
nan = float("nan")
pairs = [(1.0, 2.0), (2.0, 1.0), (0.0, -0.0), (-0.0, 0.0), (3.5, 3.5), (nan, 1.0),
         (1.0, nan), (nan, nan), (-1e300, 1e300), (float("inf"), nan)]
for i in range(40):
    # The clip flips from "not clipped" (1.0, a Python float) to a NumPy float64.
    call(f"norm{i}", grad_norm, grads, 50.0 if i < 25 or i % 3 else 0.5 + i * 0.01)
    a, b = pairs[i % len(pairs)]
    call(f"ext{i}", extremes, a + 0.0 * i, b - 0.0 * i, np.float64(b if i % 4 else nan))
    call(f"empty{i}", empty_sums, grads if i % 5 else {}, float(i))
