# `while` loops whose trip count only the data decides, as one IR LOOP with a
# condition: bisection to a tolerance that changes on every call (so does the
# trip count: one graph serves them all), Jacobi iterations under `it < n and
# err > tol` (a Python int and a Python float carried), a scan that stops at the
# first negative item (`if v[i] < 0: break`), a sum that skips negative items
# (`continue`), an argument array updated in place in the loop (`acc += x`), a
# Python int that outgrows int64's comfortable range late (k *= 3: CPython runs
# those calls, ints never wrap), and a call whose loop runs no trip while an
# input is rebound in it (the name keeps the caller's object: CPython runs it).
# expect: compiled bisect, jacobi, first_neg, skip_sum, settle, tripled
import numpy as np
from _probe import snapshot, call


def bisect(lo, hi, target):
    steps = 0
    while (hi - lo).max() > target:
        mid = 0.5 * (lo + hi)
        lo = np.where(mid * mid < 2.0, mid, lo)
        hi = np.where(mid * mid < 2.0, hi, mid)
        steps += 1
    return lo, hi, steps


def jacobi(A, d, b, x, tol, n):
    err = 1.0
    it = 0
    while it < n and err > tol:
        x_new = (b - A @ x + d * x) / d
        err = float(np.abs(x_new - x).max())
        x = x_new
        it += 1
    return x, it, err


def first_neg(v, n):
    i = 0
    total = 0.0
    while i < n:
        if v[i] < 0.0:
            break
        total += float(v[i])
        i += 1
    return i, total


def skip_sum(v, n):
    i = 0
    acc = np.zeros(2)
    while i < n:
        i += 1
        if v[i - 1] < 0.0:
            continue
        acc = acc + v[i - 1]
    return acc, i


def settle(x, acc, rate, tol):
    trips = 0
    while np.abs(x).max() > tol:
        x = x * rate
        acc += x
        trips += 1
    return x, trips


def tripled(x, limit):
    k = 1
    while x.sum() < limit:
        x = x * 3.0
        k *= 3
    return x, k


A = np.array([[4.0, 1.0, 0.5], [1.0, 5.0, 1.0], [0.5, 1.0, 6.0]])
b = np.array([1.0, 2.0, 3.0])
acc = np.zeros(4)
for i in range(36):
    call(f"bisect{i}", bisect, np.ones(2), np.full(2, 2.0), 10.0 ** -(1 + i % 7))
    call(f"jacobi{i}", jacobi, A, A.diagonal().copy(), b, np.zeros(3), 10.0 ** -(2 + i % 9),
         3 + i % 11)
    v = np.array([1.0, 2.0, 3.0, -1.0, 5.0, 6.0])
    v[i % 6] = -2.0 if i % 3 else 7.0
    call(f"first_neg{i}", first_neg, v, 6)
    call(f"skip_sum{i}", skip_sum, v, 6)
    x0 = np.array([0.5, -2.0, 1.5, 3.0]) * (0.0001 if i == 30 else 1.0)
    call(f"settle{i}", settle, x0, acc, 0.5 + 0.03 * (i % 13), 1e-3)
    call(f"tripled{i}", tripled, np.full(3, 1.0), 10.0 ** (1 + i % 7) if i < 30 else 1e12)
snapshot("acc", acc)
