"""Emits NumPy's answers for every reference kernel x dtype x shape case.

Run at build time by CMake (deterministic seeds); the C++ test replays each case
on the reference kernels and compares with the tolerance named in the case:
    exact  bit-identical (any NaN matches any NaN)
    ulp2   within 2 units in the last place (libm functions)
    dot    |got - want| <= 4 * depth * eps * (|a| @ |b|)  (BLAS summation order)
"""

import sys
import warnings

import numpy as np

from oracle_format import case_writer

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64"]
KEPT = set(DTYPES) | {"uint16", "uint32", "uint64"}

UNARY_EXACT = ["negative", "positive", "absolute", "sign", "square", "reciprocal", "sqrt",
               "floor", "ceil", "trunc", "rint", "logical_not", "invert", "isnan", "isinf",
               "isfinite", "signbit"]
UNARY_ULP = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
             "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
             "arctanh", "cbrt"]
BINARY_EXACT = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
                "fmod", "maximum", "minimum", "fmax", "fmin", "copysign", "equal", "not_equal",
                "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
                "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
                "right_shift"]
BINARY_ULP = ["power", "arctan2", "hypot"]

FLOAT_SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5,
                  3.0, 1e-310, -1e-310, 1e30, -1e30, 7.0, -7.0, 0.1]


def values(rng, dtype, shape, specials=True, lo=None, hi=None):
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo = info.min if lo is None else max(lo, int(info.min))
        hi = info.max if hi is None else min(hi, int(info.max))
        v = rng.integers(lo, hi, n, endpoint=True, dtype=np.int64 if dt != np.uint64 else np.uint64)
        v = v.astype(dt)
        if specials:
            extra = [x for x in (info.min, info.max, 0, 1, -1, 2, -2) if lo <= x <= hi]
            for i, x in enumerate(extra[: n // 2]):
                v[rng.integers(0, n)] = x
        return v.reshape(shape)
    v = (rng.standard_normal(n) * rng.choice([1.0, 10.0, 1000.0], n)).astype(dt)
    if specials:
        for i in range(min(n // 3, len(FLOAT_SPECIALS))):
            v[rng.integers(0, n)] = FLOAT_SPECIALS[rng.integers(0, len(FLOAT_SPECIALS))]
    return v.reshape(shape)


def numpy_or_none(f):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f()
    except (TypeError, ValueError, IndexError, ZeroDivisionError):
        return None


def emit_unary(w, rng):
    shapes = [(3, 7), (41,), ()]
    for op in UNARY_EXACT + UNARY_ULP:
        tol = "exact" if op in UNARY_EXACT else "ulp2"
        for dt in DTYPES:
            for shape in shapes:
                x = values(rng, dt, shape)
                if op == "reciprocal" and np.dtype(dt).kind in "iu":
                    x = np.where(x == 0, 1, x).astype(dt)  # C's 1/0 is undefined
                y = numpy_or_none(lambda: getattr(np, op)(x))
                if y is None or np.asarray(y).dtype.name not in KEPT:
                    continue
                w.write("unary", op, tol, [], [x], np.asarray(y))


MIXED_PAIRS = [("int8", "int64"), ("uint8", "int8"), ("int32", "float32"), ("bool", "float64"),
               ("int16", "uint8"), ("float32", "float64"), ("bool", "int32")]
BINARY_SHAPES = [((4, 5), (4, 5)), ((4, 1), (1, 5)), ((5,), (3, 4, 5)), ((), (2, 6))]


def binary_inputs(rng, op, da, db, sa, sb):
    a = values(rng, da, sa)
    b = values(rng, db, sb)
    kind_b = np.dtype(db).kind
    if op in ("left_shift", "right_shift") and kind_b in "iu":
        bits = np.dtype(da).itemsize * 8
        b = rng.integers(0 if kind_b == "u" else -2, bits + 3, b.shape).astype(db)
    if op == "power" and kind_b in "iu":
        b = rng.integers(0, 9, b.shape).astype(db)
    return a, b


def emit_binary(w, rng):
    pairs = [(d, d) for d in DTYPES] + MIXED_PAIRS
    for op in BINARY_EXACT + BINARY_ULP:
        tol = "exact" if op in BINARY_EXACT else "ulp2"
        for da, db in pairs:
            for sa, sb in BINARY_SHAPES:
                if sa == () and da != db:
                    continue  # value-based casting: the converter inserts the cast
                a, b = binary_inputs(rng, op, da, db, sa, sb)
                y = numpy_or_none(lambda: getattr(np, op)(a, b))
                if y is None or np.asarray(y).dtype.name not in KEPT:
                    continue
                w.write("binary", op, tol, [], [a, b], np.asarray(y))
    # Integers to negative powers raise in NumPy: an error value here.
    a = np.array([2, 3], np.int32)
    w.write("binary", "power", "exact", [], [a, np.array([1, -1], np.int32)], None)


def emit_where_cast(w, rng):
    for dt in DTYPES:
        c = values(rng, "bool", (3, 4))
        a = values(rng, dt, (3, 4))
        b = values(rng, dt, (4,))
        w.write("where", "where", "exact", [], [c, a, b], np.where(c, a, b))
    for src in DTYPES:
        for dst in DTYPES:
            x = values(rng, src, (5, 6), lo=-100, hi=100)
            if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iub":
                x = (rng.standard_normal(30) * 40).astype(src).reshape(5, 6)
                if np.dtype(dst).kind == "u":
                    x = np.abs(x)
                x[0, 0] = 0.0
            w.write("cast", dst, "exact", [], [x], x.astype(dst))


REDUCE_CASES = [((7,), None), ((3, 4, 5), None), ((3, 4, 5), (0,)), ((3, 4, 5), (1,)),
                ((3, 4, 5), (2,)), ((3, 4, 5), (0, 2)), ((3, 4, 5), (1, 2)), ((1, 300), (1,)),
                ((300, 1), (0,)), ((20000,), None), ((3, 9000), (1,)), ((9000, 3), (0,)),
                ((100, 100), None), ((4, 50, 20), (0, 2)), ((130,), (0,))]


def axes_mask(shape, axes):
    if axes is None:
        return (1 << len(shape)) - 1
    return sum(1 << a for a in axes)


def emit_reduce(w, rng):
    ops = ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax", "argmin"]
    for op in ops:
        for dt in DTYPES:
            for shape, axes in REDUCE_CASES:
                big = int(np.prod(shape)) > 1000
                if big and (dt not in ("float32", "float64", "int32") or
                            op not in ("sum", "mean", "var", "std")):
                    continue
                if op in ("argmax", "argmin") and axes is not None and len(axes) > 1:
                    continue
                x = values(rng, dt, shape, specials=not big and op not in ("var", "std"))
                if op == "prod" and np.dtype(dt).kind == "f":
                    x = (1.0 + rng.standard_normal(shape) * 0.05).astype(dt)
                for keep in ((False,) if big else (False, True)):
                    for ddof in ((0, 1) if op in ("var", "std") else (0,)):
                        kw = {"axis": axes}
                        if op not in ("argmax", "argmin"):
                            kw["keepdims"] = keep
                        elif keep:
                            continue
                        if op in ("var", "std"):
                            kw["ddof"] = ddof
                        y = numpy_or_none(lambda: getattr(np, op)(x, **kw))
                        if y is None or np.asarray(y).dtype.name not in KEPT:
                            continue
                        y = np.asarray(y)
                        tol = "exact"
                        w.write("reduce", op, tol, [axes_mask(shape, axes), ddof], [x], y)


MATMUL_SHAPES = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
                 ((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((1, 70), (70, 2))]
DOT_SHAPES = [((3, 4), (4, 5)), ((2, 3, 4), (5, 4, 6)), ((3, 4), (4,)), ((4,), (4,)),
              ((), (3, 2)), ((2, 3), ())]


def emit_linalg(w, rng):
    for dt in DTYPES:
        tol = "dot" if np.dtype(dt).kind == "f" else "exact"
        for name, shapes, f in (("matmul", MATMUL_SHAPES, np.matmul), ("dot", DOT_SHAPES, np.dot)):
            for sa, sb in shapes:
                a = values(rng, dt, sa, specials=False, lo=-50, hi=50)
                b = values(rng, dt, sb, specials=False, lo=-50, hi=50)
                y = numpy_or_none(lambda: f(a, b))
                if y is None:
                    continue
                bound = np.abs(f(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64))))
                w.write("linalg", name, tol, [], [a, b, np.asarray(bound)], np.asarray(y))
        a = values(rng, dt, (2, 3))
        b = values(rng, dt, (4,))
        w.write("linalg", "outer", "exact", [], [a, b, np.zeros(0)], np.outer(a, b))


def emit_movement(w, rng):
    for dt in DTYPES:
        x = values(rng, dt, (3, 4, 5))
        w.write("transpose", "transpose", "exact", [2, 0, 1], [x], np.transpose(x, (2, 0, 1)))
        # normalised items (kind, start, step, count): kind 0 range, 1 index, 2 newaxis
        w.write("slice", "slice", "exact", [0, 1, 1, 2, 2, 0, 0, 0, 1, 2, 0, 1, 0, 4, -2, 2],
                [x], x[1:3, None, 2, 4:0:-2])
        w.write("reshape", "reshape", "exact", [], [x.transpose(1, 0, 2).copy()],
                x.transpose(1, 0, 2).reshape(6, 10))
        y = values(rng, dt, (3, 2, 5))
        w.write("concatenate", "concatenate", "exact", [1], [x, y], np.concatenate([x, y], 1))
        z = values(rng, dt, (3, 4, 5))
        w.write("stack", "stack", "exact", [2], [x, z], np.stack([x, z], 2))
        idx = np.array([[3, -1], [0, 0]], np.int64)
        w.write("take", "take", "exact", [1], [x, idx], np.take(x, idx, 1))
        bad = np.array([4], np.int64)
        w.write("take", "take", "exact", [1], [x, bad], None)
        v = values(rng, dt, (5,))
        upd = x.copy()
        upd[:, [1, 3, 1]] = v
        w.write("take_update", "take_update", "exact", [1], [x, np.array([1, 3, 1]), v], upd)
        m = values(rng, "bool", (3, 4))
        w.write("mask_select", "mask_select", "exact", [], [x, m], x[m])
        upd = x.copy()
        upd[m] = v
        w.write("mask_update", "mask_update", "exact", [], [x, m, v], upd)


def main():
    w = case_writer(sys.argv[1])
    rng = np.random.default_rng(20240611)
    emit_unary(w, rng)
    emit_binary(w, rng)
    emit_where_cast(w, rng)
    emit_reduce(w, rng)
    emit_linalg(w, rng)
    emit_movement(w, rng)
    w.close()
    print(f"{w.m_count} cases")


if __name__ == "__main__":
    main()
