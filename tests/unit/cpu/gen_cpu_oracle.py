"""NumPy's answers for the CPU backend's own cases, in gen_graph_oracle.py's
program format: sizes that cross the blockwise evaluator's blocks, the
two-lane threshold and NumPy's 8192-element summation chunks, and every BLAS
form (gemm, syrk for A @ A.T, gemv both ways, dot), and np.dot against matmul
on operands BLAS can not read as they are. Deterministic seeds; run by
CMake at build time. argv: output path, path of tests/unit/backends.
"""

import sys

import numpy as np

sys.path.insert(0, sys.argv[2])
from gen_graph_oracle import BINARY, REDUCE, UNARY, UNARY_ULP, program, reduce_params, values  # noqa: E402


def elementwise(rng, dt, n):
    x = values(rng, dt, (n,))
    y = values(rng, dt, (n,))
    p = program(f"big_{dt}_{n}", [x, y])
    small = n < 1000
    for name, f in list(UNARY.items()) + list(UNARY_ULP.items()):
        if name == "reciprocal" and np.dtype(dt).kind in "iu":
            continue  # C's 1/0 is undefined
        if small or name in ("exp", "log", "tanh", "sqrt"):
            p.step(name, [0], [], f, "ulp2" if name in UNARY_ULP else "exact")
    for name, f in BINARY.items():
        if small or name in ("add", "div", "maximum", "lt"):
            p.step(name, [0, 1], [], f, "ulp2" if name == "pow" and np.dtype(dt).kind == "f" else "exact")
    # A chain the fusion pass groups: exp(x) * y + x, max(., 0).
    if np.dtype(dt).kind != "f":
        return p
    e = p.step("exp", [0], [], np.exp, "ulp2")
    m = p.step("mul", [e, 1], [], np.multiply)
    a = p.step("add", [m, 0], [], np.add)
    p.step("maximum", [a, 0], [], np.maximum)
    return p


def broadcast(rng, dt):
    x = values(rng, dt, (130, 257))
    row = values(rng, dt, (257,))
    p = program(f"bcast_{dt}", [x, row, values(rng, dt, ())])
    for name in ("add", "div", "lt"):
        p.step(name, [0, 1], [], BINARY[name])
        p.step(name, [1, 0], [], BINARY[name])
        p.step(name, [0, 2], [], BINARY[name])
    t = p.step("transpose", [0], [1, 0], np.transpose)
    p.step("add", [t, t], [], np.add)
    return p


def sums(rng, dt):
    p = program(f"sum_{dt}", [values(rng, dt, (100003,), specials=False),
                              values(rng, dt, (3, 20000), specials=False),
                              values(rng, dt, (64, 300, 1), specials=False)])
    for name in ("sum", "mean"):
        f = REDUCE[name]
        p.step(name, [0], reduce_params(False, 0, None), lambda v, f=f: f(v))
        p.step(name, [1], reduce_params(False, 0, (1,)), lambda v, f=f: f(v, axis=1))
        p.step(name, [1], reduce_params(True, 0, None), lambda v, f=f: f(v, keepdims=True))
        p.step(name, [2], reduce_params(False, 0, (1,)), lambda v, f=f: f(v, axis=1))
        p.step(name, [2], reduce_params(True, 0, (1, 2)), lambda v, f=f: f(v, axis=(1, 2), keepdims=True))
    return p


def blas(rng, dt):
    a = values(rng, dt, (37, 53), specials=False)
    b = values(rng, dt, (53, 41), specials=False)
    v = values(rng, dt, (53,), specials=False)
    w = values(rng, dt, (37,), specials=False)
    big = values(rng, dt, (20001,), specials=False)
    col = values(rng, dt, (37, 1), specials=False)
    row = values(rng, dt, (1, 41), specials=False)
    # Column @ row with -0.0, infinities and NaN: each element is `0 + a*b`.
    col_specials = values(rng, dt, (37, 1))
    row_specials = values(rng, dt, (1, 41))
    p = program(f"blas_{dt}", [a, b, v, w, big, col, row, col_specials, row_specials])
    for name, f in (("matmul", np.matmul), ("dot", np.dot)):
        p.step(name, [0, 1], [], f)
        p.step(name, [0, 2], [], f)
        p.step(name, [3, 0], [], f)
        p.step(name, [2, 2], [], f)
        p.step(name, [4, 4], [], f)
    p.step("matmul", [5, 6], [], np.matmul)
    p.step("matmul", [7, 8], [], np.matmul)
    t = p.step("transpose", [0], [1, 0], np.transpose)
    p.step("matmul", [0, t], [], np.matmul)  # A @ A.T: NumPy calls syrk
    p.step("dot", [0, t], [], np.dot)
    return p


def slice_params(*steps):
    # one range item per axis: kind 0, start 0, stop 0, step, no start, no stop
    return [v for st in steps for v in (0, 0, 0, st, 0, 0)]


def blas_layouts(rng, dt):
    """np.dot against np.matmul on operands BLAS can not read as they are:
    np.dot (cblas_matrixproduct) copies them in C order and calls gemm/gemv/
    ?dot with its flags, matmul's loop reads them in place (its no-BLAS loop);
    length-1 operands are np.dot's scalar paths (axpy, which skips a zero
    scale: 0 * inf is 0; one element out is a bare product: -0.0 kept)."""
    x = values(rng, dt, (23, 58), specials=False)
    y = values(rng, dt, (19, 29), specials=False)
    v = values(rng, dt, (58,), specials=False)
    s = np.array([[-0.0]], dtype=dt)
    z = np.array([[0.0]], dtype=dt)
    r = values(rng, dt, (1, 5), specials=False)
    r[0, 1] = np.inf
    c = values(rng, dt, (4, 1), specials=False)
    p = program(f"blas_layouts_{dt}", [x, y, v, s, z, r, c])
    xs = p.step("slice", [0], slice_params(1, 2), lambda a: a[:, ::2])  # (23, 29)
    yt = p.step("transpose", [1], [1, 0], np.transpose)  # (29, 19), F-ordered
    for name, f in (("dot", np.dot), ("matmul", np.matmul)):
        p.step(name, [xs, yt], [], f)
        p.step(name, [yt, 1], [], f)  # one memory seen transposed: syrk
    xt = p.step("transpose", [0], [1, 0], np.transpose)
    p.step("dot", [xt, 0], [], np.dot)
    p.step("dot", [0, xt], [], np.dot)
    rows = p.step("slice", [0], slice_params(2, 1), lambda a: a[::2])  # (12, 58)
    p.step("dot", [rows, 2], [], np.dot)  # gemv on a C copy
    p.step("matmul", [rows, 2], [], np.matmul)  # gemv on the strided rows
    back = p.step("slice", [2], slice_params(-1), lambda a: a[::-1])
    p.step("dot", [rows, back], [], np.dot)  # a copy of the reversed vector
    p.step("matmul", [rows, back], [], np.matmul)  # no-BLAS loop
    p.step("dot", [back, back], [], np.dot)
    p.step("dot", [back, xt], [], np.dot)
    every = p.step("slice", [2], slice_params(3), lambda a: a[::3])  # (20,), stride 3
    p.step("dot", [every, every], [], np.dot)  # ?dot with incx 3
    for scalar in (3, 4):
        p.step("dot", [scalar, 5], [], np.dot)
        p.step("dot", [6, scalar], [], np.dot)
        p.step("dot", [scalar, scalar], [], np.dot)
        p.step("matmul", [scalar, 5], [], np.matmul)
    rt = p.step("transpose", [5], [1, 0], np.transpose)  # (5, 1)
    p.step("dot", [5, rt], [], np.dot)  # row . column: ?dot
    p.step("dot", [6, 5], [], np.dot)  # (4,1) . (1,5): gemm, k = 1
    return p


def main():
    rng = np.random.default_rng(2024)
    progs = []
    for dt in ("float64", "float32", "int32", "uint8", "bool"):
        for n in (100, 40000) if dt in ("float64", "float32", "int32") else (100,):
            progs.append(elementwise(rng, dt, n))
        progs.append(broadcast(rng, dt))
    for dt in ("float64", "float32"):
        progs.append(sums(rng, dt))
        progs.append(blas(rng, dt))
        progs.append(blas_layouts(rng, dt))
    with open(sys.argv[1], "w") as out:
        count = sum(p.write(out) for p in progs)
    print(f"{count} programs")


if __name__ == "__main__":
    main()
