# Python float and int arithmetic: true division, ZeroDivisionError, inf/nan,
# round-half-even, int() truncation, mixed int/float comparisons.
# expect: compiled arith
from _probe import call


def arith(p, q):
    s = p / q
    t = round(p * 2.5) + int(-p / 3)
    u = float("inf") - abs(q) * 1e308 * 10
    return s, t, u, u != u, p ** 0.5, 2 ** -p, p == float(p), divmod(p, 2.5)


for i in range(30):
    call(f"arith{i}", arith, i - 10, (i % 6) - 3)
