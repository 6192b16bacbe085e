# The math module on Python floats, including domain errors and overflow raised as
# exceptions (ValueError/OverflowError) on some calls.
# expect: compiled score
import math
from _probe import call


def score(a, b):
    r = math.sqrt(a) + math.log(b) - math.exp(a / 10)
    return r, math.floor(r), math.isfinite(r), math.fsum([a, b, 1e-16]), math.pow(b, 3)


for i in range(30):
    a = float(i - 3) if i % 10 != 9 else 8000.0
    call(f"score{i}", score, a, 0.5 + i)
