"""NumPy's answers for IR graphs run end to end on a backend.

Two sets, one file (read by test_graph_oracle.cpp):
  * every IR op x dtype as a one-step graph (the IR -> kernel mapping and the IR's
    dtype rules against NumPy's);
  * a property test: random well-typed programs of several steps.
Format, per program:
    program <name>
    in <dtype> <rank> <dims...> <hex>                 (graph inputs)
    step <mnemonic> <tolerance> <n refs> <refs...> <n params> <params...>
    out <dtype> <rank> <dims...> <hex>                (NumPy's value of that step)
    bound <float64 array>                             (tolerance "dot" only: |a| @ |b|)
    end
Refs index the program's values: inputs first, then step results in order.
"""

import sys
import warnings

import numpy as np

from gen_kernel_oracle import DTYPES, values
from oracle_format import case_writer

UNARY = {"neg": np.negative, "abs": np.absolute, "sign": np.sign, "sqrt": np.sqrt,
         "square": np.square, "reciprocal": np.reciprocal, "floor": np.floor, "ceil": np.ceil,
         "rint": np.rint, "logical_not": np.logical_not}
UNARY_ULP = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
             "tanh": np.tanh, "sin": np.sin, "cos": np.cos}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
          "floordiv": np.floor_divide, "mod": np.remainder, "maximum": np.maximum,
          "minimum": np.minimum, "eq": np.equal, "ne": np.not_equal, "lt": np.less,
          "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
          "logical_and": np.logical_and, "logical_or": np.logical_or,
          "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and,
          "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
          "left_shift": np.left_shift, "right_shift": np.right_shift, "pow": np.power}
REDUCE = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "var": np.var, "std": np.std,
          "max": np.max, "min": np.min, "argmax": np.argmax, "argmin": np.argmin,
          "any": np.any, "all": np.all}
SUPPORTED = set(DTYPES)


def quiet(f):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = np.asarray(f())
        return r if r.dtype.name in SUPPORTED else None
    except (TypeError, ValueError, IndexError):
        return None


class program:
    def __init__(self, name, inputs):
        self.name = name
        self.values = list(inputs)
        self.n_inputs = len(inputs)
        self.steps = []

    def step(self, mnemonic, refs, params, f, tol="exact"):
        """Adds a step if NumPy accepts it; returns the new value's ref or None."""
        args = [self.values[i] for i in refs]
        r = quiet(lambda: f(*args))
        if r is None:
            return None
        bound = None
        if tol == "dot":  # |a| @ |b|: the scale of the rounding error of a dot product
            bound = np.abs(f(*[np.abs(a.astype(np.float64)) for a in args]))
        self.steps.append((mnemonic, tol, refs, [int(p) for p in params], r, bound))
        self.values.append(r)
        return len(self.values) - 1

    def write(self, out):
        if not self.steps:
            return 0
        lines = [f"program {self.name}\n"]
        lines += [case_writer._array_line("in", a) for a in self.values[: self.n_inputs]]
        for mnemonic, tol, refs, params, r, bound in self.steps:
            lines.append(f"step {mnemonic} {tol} {len(refs)} {' '.join(map(str, refs))} "
                         f"{len(params)} {' '.join(map(str, params))}\n")
            lines.append(case_writer._array_line("out", r))
            if bound is not None:
                lines.append(case_writer._array_line("bound", bound))
        lines.append("end\n")
        out.write("".join(lines))
        return 1


def reduce_params(keep, ddof, axes):
    # keepdims, ddof, all_axes, axes...
    return [int(keep), ddof, int(axes is None)] + ([] if axes is None else list(axes))


def op_programs(rng):
    progs = []
    for dt in DTYPES:
        a = values(rng, dt, (3, 4))
        b = values(rng, dt, (4,))
        if np.dtype(dt).kind in "iu":
            b = np.abs(values(rng, dt, (4,), lo=0, hi=6)).astype(dt)  # pow / shift friendly
        idx = np.array([2, -1, 0], np.int64)
        p = program(f"ops_{dt}", [a, b, values(rng, "bool", (3, 4)), idx, values(rng, dt, ())])
        for name, f in list(UNARY.items()) + list(UNARY_ULP.items()):
            if name == "reciprocal" and np.dtype(dt).kind in "iu":
                continue  # C's 1/0 is undefined; covered zero-free by the kernel oracle
            p.step(name, [0], [], f, "exact" if name in UNARY else "ulp2")
        for name, f in BINARY.items():
            p.step(name, [0, 1], [], f, "ulp2" if name == "pow" and dt.startswith("float") else "exact")
        for to in DTYPES:
            x = a if np.dtype(dt).kind != "f" else np.round(a)
            if np.dtype(dt).kind == "f" and np.dtype(to).kind in "iub":
                continue  # out-of-range float -> int is undefined in C
            p.step("cast", [0], [DTYPES.index(to)], lambda v, to=to: v.astype(to))
        p.step("where", [2, 0, 1], [], np.where)
        # One value broadcast from a 0-d operand (the select's scalar paths).
        p.step("where", [2, 0, 4], [], np.where)
        p.step("where", [2, 4, 0], [], np.where)
        p.step("where", [2, 4, 4], [], np.where)
        p.step("clip", [0, 1, 1], [], lambda x, lo, hi: np.clip(x, lo, np.maximum(lo, hi)))
        for name, f in REDUCE.items():
            for axes, keep in ((None, False), ((0,), True), ((1,), False)):
                kw = {} if name.startswith("arg") else {"keepdims": keep}
                if name.startswith("arg") and keep:
                    continue
                ax = None if axes is None else axes[0]
                p.step(name, [0], reduce_params(keep, 0, axes),
                       lambda v, f=f, ax=ax, kw=kw: f(v, axis=ax, **kw))
        tol = "dot" if np.dtype(dt).kind == "f" else "exact"
        p.step("matmul", [0, 1], [], np.matmul, tol)
        p.step("dot", [0, 1], [], np.dot, tol)
        p.step("outer", [1, 1], [], np.outer)
        p.step("transpose", [0], [1, 0], np.transpose)
        p.step("reshape", [0], [2, 6], lambda v: v.reshape(2, 6))
        p.step("expand_dims", [0], [1], lambda v: np.expand_dims(v, 1))
        p.step("broadcast_to", [1], [2, 4], lambda v: np.broadcast_to(v, (2, 4)))
        p.step("concatenate", [0, 0], [0], lambda u, v: np.concatenate([u, v], 0))
        p.step("stack", [1, 1], [1], lambda u, v: np.stack([u, v], 1))
        # slice items: kind (0 range 1 index 2 newaxis), start, stop, step, has_start, has_stop
        p.step("slice", [0], [0, 1, 0, 1, 1, 0, 2, 0, 0, 1, 0, 0, 0, 3, 0, -2, 1, 0],
               lambda v: v[1:, None, 3::-2])
        indexing_steps(p)
        creation_steps(p, dt)
        progs.append(p)
    return progs


def assigned(x, key, v):
    y = x.copy()
    y[key] = v
    return y


def indexing_steps(p):
    """Refs: 0 a (3,4), 1 b (4,), 2 mask (3,4), 3 idx [2,-1,0], 4 a 0-d value."""
    p.step("gather", [0, 3], [1], lambda x, i: np.take(x, i, axis=1))
    p.step("mask_select", [0, 2], [], lambda x, m: x[m])
    p.step("slice_update", [0, 1], [1, 1, 0, 1, 0, 0], lambda x, v: assigned(x, 1, v))
    p.step("gather_update", [0, 3, 1], [0], lambda x, i, v: assigned(x, i, v))
    p.step("mask_update", [0, 2, 4], [], lambda x, m, v: assigned(x, m, v))
    p.step("fill", [0, 4], [], lambda x, v: np.full_like(x, v))
    wide = p.step("expand_dims", [0], [1], lambda v: np.expand_dims(v, 1))
    if wide is not None:
        p.step("squeeze", [wide], [1], lambda v: np.squeeze(v, 1))
    p.step("shape_dim", [0], [1], lambda x: np.int64(x.shape[1]))


def creation_steps(p, dt):
    k = DTYPES.index(dt)
    is_f = np.dtype(dt).kind == "f"
    p.step("zeros", [], [k, 2, 3], lambda: np.zeros((2, 3), dt))
    p.step("ones", [], [k, 3], lambda: np.ones((3,), dt))
    num, den = (-7, 10) if is_f else (-7, 1)
    if dt == "uint8":
        num = 250
    p.step("full", [], [k, num, den, 2, 2], lambda: np.full((2, 2), num / den if is_f else num, dt))
    if dt != "bool":
        start, step, stop = ((1, 10), 3, (17, 10)) if is_f else (3, 7, 100)
        if is_f:
            r = np.arange(start[0] / start[1], stop[0] / stop[1], step / 10, dtype=dt)
            params = [k, start[0], start[1], step, 10, len(r)]
        else:
            r = np.arange(start, stop, step, dtype=dt)
            params = [k, start, 1, step, 1, len(r)]
        p.step("arange", [], params, lambda: r)
    p.step("eye", [], [k, 3, 4, 1], lambda: np.eye(3, 4, 1, dtype=dt))


def random_program(rng, k):
    dt = DTYPES[rng.integers(0, len(DTYPES))]
    shape = tuple(int(s) for s in rng.integers(1, 6, rng.integers(1, 4)))
    p = program(f"random_{k}", [values(rng, dt, shape), values(rng, dt, shape[-1:])])
    exact_unary = ["neg", "abs", "square", "floor", "logical_not", "sign"]
    for _ in range(int(rng.integers(3, 8))):
        ref = int(rng.integers(0, len(p.values)))
        other = int(rng.integers(0, len(p.values)))
        choice = rng.integers(0, 5)
        if choice == 0:
            name = exact_unary[rng.integers(0, len(exact_unary))]
            p.step(name, [ref], [], UNARY[name])
        elif choice == 1:
            name = list(BINARY)[rng.integers(0, len(BINARY) - 1)]  # no pow: int overflow fine, but float pow is libm
            p.step(name, [ref, other], [], BINARY[name])
        elif choice == 2:
            v = p.values[ref]
            if v.ndim == 0:
                continue
            axis = int(rng.integers(0, v.ndim))
            name = ["sum", "max", "min", "any", "mean"][rng.integers(0, 5)]
            p.step(name, [ref], reduce_params(True, 0, (axis,)),
                   lambda x, f=REDUCE[name], a=axis: f(x, axis=a, keepdims=True))
        elif choice == 3:
            v = p.values[ref]
            if v.ndim >= 2:
                perm = [int(x) for x in rng.permutation(v.ndim)]
                p.step("transpose", [ref], perm, lambda x, pm=perm: np.transpose(x, pm))
        else:
            to = DTYPES[rng.integers(0, len(DTYPES))]
            if p.values[ref].dtype.kind == "f" and np.dtype(to).kind in "iu":
                continue
            p.step("cast", [ref], [DTYPES.index(to)], lambda x, t=to: x.astype(t))
    return p


def main():
    rng = np.random.default_rng(77)
    count = 0
    with open(sys.argv[1], "w") as out:
        for p in op_programs(rng):
            count += p.write(out)
        for k in range(300):
            count += random_program(rng, k).write(out)
    print(f"{count} programs")


if __name__ == "__main__":
    main()
