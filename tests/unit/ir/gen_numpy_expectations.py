#!/usr/bin/python3
"""Writes what NumPy does for the cases the IR tests check: promotion, value-based
casting, ufunc result dtypes, reduction dtypes and exact elementwise values.

Run by CMake at build time; the C++ tests read the file. Only the inputs are listed
here; every expected result comes from NumPy itself."""
import itertools
import sys
import warnings

import numpy as np

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64"]

UNARY = {
    "neg": np.negative, "abs": np.absolute, "sign": np.sign, "exp": np.exp,
    "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "sqrt": np.sqrt,
    "square": np.square, "reciprocal": np.reciprocal, "tanh": np.tanh, "sin": np.sin,
    "cos": np.cos, "floor": np.floor, "ceil": np.ceil, "rint": np.rint,
    "logical_not": np.logical_not,
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": np.floor_divide, "mod": np.remainder, "pow": np.power,
    "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "left_shift": np.left_shift, "right_shift": np.right_shift, "matmul": np.matmul,
}
REDUCE = {
    "sum": np.sum, "prod": np.prod, "mean": np.mean, "var": np.var, "std": np.std,
    "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin,
    "any": np.any, "all": np.all,
}

INTS = [0, 1, 5, 127, 128, 200, 255, 256, 300, 32767, 32768, 65535, 65536, 2**31 - 1,
        2**31, 2**40, -1, -5, -128, -129, -300, -32768, -32769, -2**31, -2**31 - 1, -2**40]
FLOATS = [0.0, 0.5, -1.5, 1e4, 65000.0, 70000.0, 1e38, 3.5e38, 1e300, -1e300,
          float("inf"), float("nan")]


def name(dt):
    return np.dtype(dt).name


def out(*parts):
    print(" ".join(str(p) for p in parts))


def operand(spec):
    kind, _, rest = spec.partition(":")
    if kind == "arr":
        return np.ones(2, dtype=rest)
    if kind == "zd":
        dt, _, val = rest.partition(":")
        return np.array(float(val) if np.dtype(dt).kind == "f" else int(val), dtype=dt)
    if kind == "int":
        return int(rest)
    if kind == "float":
        return float(rest)
    return rest == "1"


def result_type_cases():
    for a in DTYPES:
        for v in INTS:
            yield ["arr:" + a, "int:%d" % v]
        for v in FLOATS:
            yield ["arr:" + a, "float:%r" % v]
        yield ["arr:" + a, "bool:1"]
        for b in DTYPES:
            zero = "0.5" if np.dtype(b).kind == "f" else "1"
            yield ["arr:" + a, "zd:%s:%s" % (b, zero)]
            yield ["arr:" + a, "zd:%s:%s" % (b, "-3" if np.dtype(b).kind == "i" else "3")]
            yield ["arr:" + a, "arr:" + b, "int:-1"]
            yield ["arr:" + a, "arr:" + b, "int:300"]
            yield ["zd:%s:2" % a, "zd:%s:2" % b]
    for v in INTS[:6]:
        yield ["int:%d" % v, "float:1.5"]


def promotion():
    for a, b in itertools.product(DTYPES, DTYPES):
        out("promote", a, b, name(np.promote_types(a, b)))
    for case in result_type_cases():
        try:
            r = name(np.result_type(*[operand(s) for s in case]))
        except (TypeError, OverflowError):
            r = "error"
        out("result_type", len(case), *case, r)


def ufunc_dtypes():
    for op, f in UNARY.items():
        for a in DTYPES:
            try:
                r = name(f(np.ones(2, dtype=a)).dtype)
            except TypeError:
                r = "error"
            out("ufunc", op, 1, a, r)
    for op, f in BINARY.items():
        for a, b in itertools.product(DTYPES, DTYPES):
            shape = (2, 2) if op == "matmul" else 2
            try:
                r = name(f(np.ones(shape, dtype=a), np.ones(shape, dtype=b)).dtype)
            except TypeError:
                r = "error"
            out("ufunc", op, 2, a, b, r)
    for op, f in REDUCE.items():
        for a in DTYPES:
            try:
                r = name(np.asarray(f(np.ones(3, dtype=a))).dtype)
            except TypeError:
                r = "error"
            out("reduce", op, a, r)


VALUES = {
    "bool": [0, 1],
    "int8": [0, 1, -1, 7, -8, 100, 127, -128],
    "int16": [0, 3, -7, 300, 32767, -32768],
    "int32": [0, 5, -6, 65536, 2**31 - 1, -2**31],
    "int64": [0, 9, -13, 2**40, 2**63 - 1, -2**63],
    "uint8": [0, 1, 3, 128, 255],
    "float32": [0.0, -0.0, 1.5, -2.25, 0.1, 3e38, 1e-30],
    "float64": [0.0, -0.0, 2.5, -7.125, 0.1, 1e308, 5e-324, 1.0 / 3],
}
FOLD_BINARY = ["add", "sub", "mul", "div", "floordiv", "mod", "maximum", "minimum", "eq",
               "lt", "ge", "logical_and", "logical_xor", "bitwise_and", "bitwise_xor",
               "left_shift", "right_shift"]
FOLD_UNARY = ["neg", "abs", "sign", "square", "sqrt", "reciprocal", "floor", "rint",
              "logical_not"]


def value_text(arr):
    """Exact text: integers in decimal, floats as the hex of their bits."""
    v = arr.reshape(-1)[0]
    if arr.dtype.kind == "f":
        bits = v.view(np.uint32 if arr.dtype.itemsize == 4 else np.uint64)
        return "0x%x" % int(bits)
    return str(int(v))


def input_text(dt, v):
    return "%s:%s" % (dt, value_text(np.array([v], dtype=dt)))


def fold_cases():
    pairs = [(a, a) for a in DTYPES] + [("int8", "uint8"), ("int16", "float32"),
                                        ("int32", "float64"), ("bool", "int8"),
                                        ("uint8", "int64"), ("float32", "float64")]
    for op in FOLD_BINARY:
        f = BINARY[op]
        for a, b in pairs:
            for x, y in itertools.product(VALUES[a], VALUES[b]):
                emit_fold(op, f, [(a, x), (b, y)])
    for op in FOLD_UNARY:
        for a in DTYPES:
            for x in VALUES[a]:
                emit_fold(op, UNARY[op], [(a, x)])


def emit_fold(op, f, args):
    arrays = [np.array([v], dtype=dt) for dt, v in args]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with np.errstate(divide="warn", over="warn", under="ignore", invalid="warn"):
                r = f(*arrays)
        res = "%s:%s" % (name(r.dtype), value_text(r))
    except (TypeError, FloatingPointError, RuntimeWarning, ValueError):
        res = "noresult"
    out("fold", op, len(args), *[input_text(dt, v) for dt, v in args], res)


def slices():
    bounds = [None, -12, -5, -1, 0, 1, 3, 7, 12]
    for size in [0, 1, 5, 8]:
        for start, stop, step in itertools.product(bounds, bounds, [-3, -1, 1, 2]):
            r = range(size)[slice(start, stop, step)]
            first = r.start if len(r) else 0
            out("slice", size, "_" if start is None else start, "_" if stop is None else stop,
                step, len(r), first if len(r) else "_")


def main():
    slices()
    promotion()
    ufunc_dtypes()
    fold_cases()


if __name__ == "__main__":
    sys.exit(main())
