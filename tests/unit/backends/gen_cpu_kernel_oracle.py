"""NumPy's answers for the CPU backend's indexing, copy, creation and reduction kernels.

Graph programs in gen_graph_oracle.py's format (read by test_cpu_kernels.cpp), one
family per name prefix: gather_, gupdate_, mselect_, mupdate_, supdate_, concat_,
create_, reduce_. Shapes cover empty, one-element, broadcast values and sizes large
enough for the two-lane split; indices cover negative values and duplicates (NumPy
keeps the last assigned value).
"""

import sys

import numpy as np

from gen_graph_oracle import REDUCE, assigned, program, reduce_params
from gen_kernel_oracle import DTYPES, values

EXACT = ["bool", "int32", "int64", "float32", "float64"]
LARGE = ["int32", "float64"]


def indices(rng, extent, n, dtype=np.int64):
    """n indices into an axis of `extent`, negative ones and duplicates included."""
    if extent == 0 or n == 0:
        return np.zeros(n, dtype)
    i = rng.integers(-extent, extent, n)
    if n >= 3:
        i[-1] = i[0]  # a duplicate: the later value must win
    return i.astype(dtype)


def gather_programs(rng, out):
    k = 0
    cases = [((0,), 0, 0), ((1,), 0, 1), ((5,), 0, 7), ((4, 6), 0, 5), ((4, 6), 1, 3),
             ((4, 6), -1, 0), ((3, 4, 5), 1, 6), ((2, 0, 3), 2, 2)]
    for dt in EXACT:
        for shape, axis, n in cases:
            for idt in (np.int64, np.int32):
                x = values(rng, dt, shape)
                idx = indices(rng, shape[axis], n, idt)
                if shape[axis] == 0 and n > 0:
                    continue
                p = program(f"gather_{k}", [x, idx])
                p.step("gather", [0, 1], [axis], lambda a, i, ax=axis: np.take(a, i, axis=ax))
                k += p.write(out)
        x = values(rng, dt, (4, 5))
        p = program(f"gather_{k}", [x, indices(rng, 5, 6).reshape(2, 3)])
        p.step("gather", [0, 1], [1], lambda a, i: np.take(a, i, axis=1))
        k += p.write(out)
    for dt in LARGE:
        x = values(rng, dt, (300, 40))
        p = program(f"gather_{k}", [x, indices(rng, 300, 900)])
        p.step("gather", [0, 1], [0], lambda a, i: np.take(a, i, axis=0))
        k += p.write(out)
    return k


def gather_update_programs(rng, out):
    k = 0
    for dt in EXACT:
        for shape, axis, n in [((6,), 0, 4), ((1,), 0, 1), ((4, 6), 0, 5), ((4, 6), 1, 3),
                               ((3, 4, 5), 1, 6), ((5,), 0, 0)]:
            x = values(rng, dt, shape)
            idx = indices(rng, shape[axis], n)
            take = np.take(x, idx, axis=axis).shape
            vshapes = [(), take, take[-1:] if take else ()]
            for vs in vshapes:
                v = values(rng, dt, vs)
                p = program(f"gupdate_{k}", [x, idx, v])

                def f(a, i, b, ax=axis):
                    y = a.copy()
                    key = (slice(None),) * (ax % a.ndim) + (i,)
                    y[key] = b
                    return y

                p.step("gather_update", [0, 1, 2], [axis], f)
                k += p.write(out)
        # values of another dtype are converted as NumPy's setitem does
        x = values(rng, dt, (7,))
        v = np.round(values(rng, "float64", (3,), specials=False)) % 100
        p = program(f"gupdate_{k}", [x, indices(rng, 7, 3), v])
        p.step("gather_update", [0, 1, 2], [0], lambda a, i, b: assigned(a, i, b))
        k += p.write(out)
    for dt in LARGE:
        x = values(rng, dt, (400, 90))
        idx = indices(rng, 400, 380)
        p = program(f"gupdate_{k}", [x, idx, values(rng, dt, (380, 90))])
        p.step("gather_update", [0, 1, 2], [0], lambda a, i, b: assigned(a, i, b))
        k += p.write(out)
    return k


def mask_programs(rng, out):
    k = 0
    for dt in EXACT:
        for shape, mrank in [((5,), 1), ((4, 6), 2), ((4, 6), 1), ((3, 4, 2), 2), ((1,), 1),
                             ((0, 3), 1)]:
            x = values(rng, dt, shape)
            for fill in ("random", "none", "all"):
                m = values(rng, "bool", shape[:mrank])
                if fill != "random":
                    m = np.full(shape[:mrank], fill == "all")
                p = program(f"mselect_{k}", [x, m])
                p.step("mask_select", [0, 1], [], lambda a, b: a[b])
                k += p.write(out)
                count = int(m.sum())
                for vs in [(), (count,) + shape[mrank:], (1,) + shape[mrank:]]:
                    p = program(f"mupdate_{k}", [x, m, values(rng, dt, vs)])
                    p.step("mask_update", [0, 1, 2], [], lambda a, b, c: assigned(a, b, c))
                    k += p.write(out)
    for dt in LARGE:
        x = values(rng, dt, (200, 180))
        m = values(rng, "bool", (200, 180))
        p = program(f"mselect_{k}", [x, m])
        p.step("mask_select", [0, 1], [], lambda a, b: a[b])
        k += p.write(out)
        p = program(f"mupdate_{k}", [x, m, values(rng, dt, ())])
        p.step("mask_update", [0, 1, 2], [], lambda a, b, c: assigned(a, b, c))
        k += p.write(out)
    return k


def item(kind, start=0, stop=0, step=1, has_start=False, has_stop=False):
    # kind: 0 range, 1 index, 2 newaxis (graph_program.cpp's slice_items)
    return [kind, start, stop, step, int(has_start), int(has_stop)]


def slice_update_programs(rng, out):
    k = 0
    # (items, the same key for NumPy, x shape)
    cases = [
        (item(0, 1, -1, 1, True, True) + item(0, 1, -1, 1, True, True),
         (slice(1, -1), slice(1, -1)), (6, 7)),
        (item(1, 2), (2,), (5, 3)),
        (item(0, 4, 0, -2, True, False), (slice(4, None, -2),), (6,)),
        (item(0) + item(1, -1), (slice(None), -1), (3, 4)),
        (item(0, 3, 3, 1, True, True), (slice(3, 3),), (5,)),
        (item(0, 0, 1, 1, True, True), (slice(0, 1),), (1,)),
    ]
    for dt in EXACT:
        for items, key, shape in cases:
            x = values(rng, dt, shape)
            target = x[key].shape
            for vs in [(), target, target[-1:] if target else ()]:
                p = program(f"supdate_{k}", [x, values(rng, dt, vs)])
                p.step("slice_update", [0, 1], items, lambda a, b, key=key: assigned(a, key, b))
                k += p.write(out)
    for dt in LARGE:
        x = values(rng, dt, (190, 190))
        key = (slice(1, -1), slice(1, -1))
        p = program(f"supdate_{k}", [x, values(rng, dt, (188, 188))])
        p.step("slice_update", [0, 1], cases[0][0], lambda a, b: assigned(a, key, b))
        k += p.write(out)
    return k


def concat_programs(rng, out):
    k = 0
    for dt in EXACT:
        for shapes, axis in [([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 0)], 1),
                             ([(1,), (1,)], 0), ([(0, 2), (0, 2)], 1)]:
            xs = [values(rng, dt, s) for s in shapes]
            p = program(f"concat_{k}", xs)
            p.step("concatenate", list(range(len(xs))), [axis],
                   lambda *a, ax=axis: np.concatenate(a, ax))
            k += p.write(out)
        for shape, axis in [((2, 3), 0), ((2, 3), 2), ((4,), -1), ((), 0)]:
            xs = [values(rng, dt, shape) for _ in range(3)]
            p = program(f"concat_{k}", xs)
            p.step("stack", [0, 1, 2], [axis], lambda *a, ax=axis: np.stack(a, ax))
            k += p.write(out)
    for dt in LARGE:
        xs = [values(rng, dt, (200, 100)), values(rng, dt, (200, 80))]
        p = program(f"concat_{k}", xs)
        p.step("concatenate", [0, 1], [1], lambda a, b: np.concatenate([a, b], 1))
        k += p.write(out)
    return k


def creation_programs(rng, out):
    k = 0
    for dt in DTYPES:
        t = DTYPES.index(dt)
        is_f = np.dtype(dt).kind == "f"
        p = program(f"create_{k}", [values(rng, dt, (2, 3)), values(rng, dt, ())])
        p.step("zeros", [], [t, 2, 3], lambda: np.zeros((2, 3), dt))
        p.step("zeros", [], [t, 0], lambda: np.zeros((0,), dt))
        p.step("ones", [], [t, 1], lambda: np.ones((1,), dt))
        p.step("ones", [], [t, 200, 170], lambda: np.ones((200, 170), dt))
        num, den = (-13, 4) if is_f else (-3, 1)
        if dt == "uint8":
            num = 200
        p.step("full", [], [t, num, den, 4, 1], lambda: np.full((4, 1), num / den if is_f else num, dt))
        p.step("fill", [0, 1], [], lambda a, v: np.full_like(a, v))
        if dt != "bool":
            for start, step, count in ((0, 1, 0), (5, 1, 1), (3 if dt == "uint8" else -3, 2, 40)):
                r = np.arange(start, start + step * count, step, dtype=dt)
                p.step("arange", [], [t, start, 1, step, 1, len(r)], lambda r=r: r)
        for n, m, diag in ((3, 4, 1), (4, 4, 0), (2, 5, -1), (0, 3, 0)):
            p.step("eye", [], [t, n, m, diag], lambda n=n, m=m, diag=diag: np.eye(n, m, diag, dtype=dt))
        p.step("shape_dim", [0], [1], lambda a: np.int64(a.shape[1]))
        k += p.write(out)
    return k


def reduction_programs(rng, out):
    k = 0
    cases = [((), None), ((0,), None), ((1,), None), ((7,), None), ((7,), (0,)), ((3, 4), None),
             ((3, 4), (0,)), ((3, 4), (1,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (1,)),
             ((2, 3, 4), (0, 1)), ((2, 1, 5), (1,)), ((4, 0), (0,)), ((4, 0), (1,)),
             ((3, 1, 4), (0, 1))]
    for dt in DTYPES:
        for shape, axes in cases:
            x = values(rng, dt, shape)
            p = program(f"reduce_{k}", [x])
            for name, f in REDUCE.items():
                if name.startswith("arg") and axes is not None and len(axes) > 1:
                    continue
                for keep in (False, True):
                    if name.startswith("arg") and keep:
                        continue
                    for ddof in ((0, 1) if name in ("var", "std") else (0,)):
                        kw = {} if name.startswith("arg") else {"keepdims": keep}
                        if ddof:
                            kw["ddof"] = ddof
                        ax = axes if axes is None or not name.startswith("arg") else axes[0]
                        p.step(name, [0], reduce_params(keep, ddof, axes),
                               lambda v, f=f, ax=ax, kw=kw: f(v, axis=ax, **kw))
            k += p.write(out)
    # Past one 8192-element chunk, and past the lanes' split; special values too.
    for dt in ("float32", "float64", "int32", "bool"):
        for shape, axes in [((20000,), None), ((130, 300), (0,)), ((130, 300), (1,)),
                            ((40, 30, 50), (0, 2)), ((9000, 3), (0,))]:
            x = values(rng, dt, shape)
            p = program(f"reduce_{k}", [x])
            for name in ("sum", "mean", "max", "argmin", "any", "var", "std", "prod"):
                if name == "argmin" and axes is not None and len(axes) > 1:
                    continue
                ax = axes if axes is None or name != "argmin" else axes[0]
                p.step(name, [0], reduce_params(False, 0, axes),
                       lambda v, f=REDUCE[name], ax=ax: f(v, axis=ax))
            k += p.write(out)
    # Signed zeros decide max/min ties; NaN wins wherever it is.
    for dt in ("float32", "float64"):
        z = np.array([0.0, -0.0] * 50, dt)
        for x in (z, z[::-1].copy(), np.where(np.arange(100) == 61, np.nan, z).astype(dt)):
            p = program(f"reduce_{k}", [x])
            for name in ("max", "min", "argmax", "argmin", "sum"):
                p.step(name, [0], reduce_params(False, 0, None), lambda v, f=REDUCE[name]: f(v))
            k += p.write(out)
    return k


def outer_programs(rng, out):
    k = 0
    for dt in DTYPES:
        for other in (dt, "int64", "float64"):
            for m, n in ((3, 5), (1, 1), (0, 4), (200, 180)):
                if m * n > 1000 and dt not in LARGE:
                    continue
                a = values(rng, dt, (m,))
                b = values(rng, other, (n,))
                p = program(f"outer_{k}", [a, b])
                p.step("outer", [0, 1], [], np.outer)
                k += p.write(out)
        p = program(f"outer_{k}", [values(rng, dt, (2, 3)), values(rng, dt, (4,))])
        p.step("outer", [0, 1], [], np.outer)
        k += p.write(out)
    return k


def main():
    rng = np.random.default_rng(20261122)
    with open(sys.argv[1], "w") as out:
        total = 0
        for make in (gather_programs, gather_update_programs, mask_programs,
                     slice_update_programs, concat_programs, creation_programs,
                     reduction_programs, outer_programs):
            total += make(rng, out)
    print(f"{total} programs")


if __name__ == "__main__":
    main()
