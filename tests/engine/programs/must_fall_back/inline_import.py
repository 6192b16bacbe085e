# An import statement inside the hot function: not convertible.
# must-not-convert: uses_import
import numpy as np
from _probe import call


def uses_import(x):
    import math
    from numpy import linalg
    return linalg.norm(x) + math.pi


for i in range(25):
    call(f"ui{i}", uses_import, np.arange(3.0) + i)
