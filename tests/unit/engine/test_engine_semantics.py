"""Engine on vs off, bit for bit: compiled functions, guard misses and
relaxation, asserts with effects, not-convertible reporting, generators."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import differential  # noqa: E402

# Indented like the program bodies below, which are dedented as a whole.
REPORT = """
        import json as _json, specula as _specula
        print("REPORT" + _json.dumps(_specula.report()))
"""


def rows_of(proc):
    return {r["name"]: r for r in json.loads(proc.stdout.split("REPORT")[1])}


def test_simple_function_bit_identical(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        def f(x, y, s):
            z = np.maximum(x * s + y, 0.0) - np.sqrt(np.abs(x))
            return z.sum(axis=0), z.mean(), z[1:3] * 2.0, np.where(z > 0.5, z, -1.0)
        rng = np.random.default_rng(1)
        x = rng.standard_normal((5, 7)); y = rng.standard_normal(7)
        for _ in range(4):
            out = f(x, y, 0.3)
        for o in out:
            print(type(o).__name__, np.asarray(o).dtype, np.asarray(o).tobytes().hex())
    """ + REPORT)
    row = rows_of(proc)["f"]
    assert row["state"] == "compiled" and row["graph_runs"] == 4


def test_returned_view_is_not_converted(tmp_path):
    # NumPy returns views sharing y's memory (base, flags, strides): the graph
    # cannot, so the function stays in CPython and says why.
    proc = differential(tmp_path, """
        import numpy as np
        def split(x):
            y = x * 2
            return y, y[:2], y[2:]
        x = np.arange(6.0)
        for _ in range(4):
            y, lo, hi = split(x)
        print(lo.base is y, hi.base is y, lo.flags.owndata, np.shares_memory(lo, y))
    """ + REPORT)
    row = rows_of(proc)["split"]
    assert row["state"] == "not_convertible" and "view" in row["reason"]


def test_guard_miss_then_recompile_and_relax(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        def f(x):
            return (x * 2.0).sum(axis=1)
        for n in (4, 4, 3, 5, 6):
            print(f(np.arange(n * 8.0).reshape(n, 8)).tobytes().hex())
        print(f(np.arange(8, dtype=np.int64).reshape(1, 8)).tobytes().hex())
    """ + REPORT)
    row = rows_of(proc)["f"]
    assert row["guard_misses"] >= 2
    assert row["state"] == "compiled" and row["graph_runs"] >= 5


def test_assert_failure_leaves_no_partial_effects(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        class Model:
            pass
        m = Model(); m.h = np.zeros(3); m.steps = 0
        total = np.zeros(3)
        def step(m, x):
            m.h = m.h + x
            total[:] = total + x
            print("step", m.steps)
            m.steps = m.steps + 1
            if np.max(x) > 10.0:
                raise ValueError("too big")
            return m.h
        for v in (1.0, 2.0, 30.0, 3.0):
            try:
                step(m, np.full(3, v))
            except ValueError as e:
                print("raised", e)
            print(m.steps, m.h.tobytes().hex(), total.tobytes().hex())
    """ + REPORT)
    row = rows_of(proc)["step"]
    assert row["assert_failures"] >= 1
    assert row["graph_runs"] >= 2


def test_in_place_and_out_and_globals(tmp_path):
    differential(tmp_path, """
        import numpy as np
        counter = 0
        def f(a, b):
            global counter
            a += b
            np.clip(a, -1.0, 1.5, out=a)
            b[1:3] = 7.0
            counter = counter + 1
            return a
        a = np.zeros(5); b = np.linspace(0, 1, 5)
        for _ in range(3):
            r = f(a, b)
            print(r is a, a.tobytes().hex(), b.tobytes().hex(), counter)
        v = np.arange(6.0)
        f(v[:3], v[3:])          # disjoint views of one base
        print(v.tobytes().hex())
        w = np.arange(6.0)
        f(w[1:6], w[0:5])        # overlapping: must fall back
        print(w.tobytes().hex())
    """)


def test_not_convertible_reported_with_construct_and_line(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        def f(x):
            y = x + 1.0
            while y.sum() > 0:
                print("step")
                y = y - 10.0
            return y
        for _ in range(3):
            print(f(np.ones(3)).tobytes().hex())
    """ + REPORT)
    row = rows_of(proc)["f"]
    assert row["state"] == "not_convertible"
    # threshold 0: no trip count profiled, so an IR loop, which cannot stack prints per trip
    assert row["reason"].startswith(
        "not convertible: effects (print, attribute, item or global writes, appends) inside a "
        "while loop converted as an IR loop at ")
    assert row["reason"].endswith("prog.py:5")


def test_generators_untouched(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        def gen(x):
            for i in range(3):
                yield x * i
        for _ in range(4):
            print([g.tobytes().hex() for g in gen(np.ones(2))])
    """ + REPORT)
    assert "gen" not in rows_of(proc)


def test_rebinding_a_called_function_misses(tmp_path):
    proc = differential(tmp_path, """
        import numpy as np
        def f(x):
            return np.maximum(x, 0.0)
        for _ in range(3):
            print(f(np.linspace(-1, 1, 5)).tobytes().hex())
        np.maximum = np.minimum
        print(f(np.linspace(-1, 1, 5)).tobytes().hex())
    """ + REPORT)
    assert rows_of(proc)["f"]["guard_misses"] >= 1


def test_python_scalars_stay_python(tmp_path):
    differential(tmp_path, """
        import numpy as np
        def f(a, lr, n):
            s = 0
            for i in range(n):
                s = s + i * 2 ** 70
            x = lr * 3.0
            return s, x, a * lr, len(a), a.shape
        for lr in (0.5, 0.25, 0.125):
            print(repr(f(np.ones(3), lr, 4)))
    """)


# Eight slices of a large array: NumPy's slices are free views, the graph's
# backend copies them, so the graph is clearly slower than CPython.
SLOW_GRAPH = """
        import numpy as np
        def f(u):
            # NumPy reduces each slice in place through a view; the graph copies
            # every slice first (about 13x slower here, 4x for a sum of slices).
            return (u[1:-1, 1:-1].max() + u[2:, 1:-1].max() + u[:-2, 1:-1].max()
                    + u[1:-1, 2:].max() + u[1:-1, :-2].max() + u[2:, 2:].max()
                    + u[:-2, :-2].max() + u[2:, :-2].max() + u[:-2, 2:].max())
        u = np.random.default_rng(3).standard_normal((1200, 1200))
        for _ in range(12):
            r = f(u)
        print(np.float64(r).tobytes().hex())
"""


def test_graph_slower_than_cpython_goes_back_to_cpython(tmp_path):
    # The verdict depends on the machine's clock, never on a timed assertion
    # here: the margin (slice copies vs free views) is large.
    proc = differential(tmp_path, SLOW_GRAPH + REPORT, cost_check="on")
    row = rows_of(proc)["f"]
    assert row["reason"].startswith("graph slower than CPython (graph "), row
    assert row["graph_runs"] >= 5
    assert row["time_graph_s"] > 0 and row["time_cpython_s"] > 0
    # The loss is not final yet (engine/README.md, "Cost check"): the region
    # stays compiled for the graph's next trial, after 64 CPython calls.
    (spec,) = row["specialisations"]
    assert spec["verdict"] == "cpython" and spec["cost_losses"] == 1, spec
    assert row["state"] == "compiled" and spec["retry_after_calls"] > 0, row


def test_cost_check_off_keeps_the_graph(tmp_path):
    proc = differential(tmp_path, SLOW_GRAPH + REPORT, cost_check="off")
    row = rows_of(proc)["f"]
    assert row["state"] == "compiled" and row["graph_runs"] == 12, row
    assert row["time_cpython_s"] == 0


def test_unpacking_of_profiled_structures(tmp_path):
    # Notebook style: nested unpacking of a list of (W, b) tuples, swaps,
    # unpacking of a tuple argument, iteration over a list of tuples. The
    # items are read through item sources (params -> [0] -> [1]), so a
    # rebound item is seen on the next call.
    proc = differential(tmp_path, """
        import numpy as np
        def forward(params, X):
            (W1, b1), (W2, b2) = params
            h = np.maximum(X @ W1 + b1, 0.0)
            return h @ W2 + b2
        def swap(pair, s):
            x, y = pair
            x, y = y, x * s
            [u, v] = x, y
            return u - v
        def layers(params, X):
            for (W, b) in params:
                X = np.maximum(X @ W + b, 0.0)
            return X
        rng = np.random.default_rng(3)
        params = [(rng.standard_normal((4, 6)), rng.standard_normal(6)),
                  (rng.standard_normal((6, 3)), rng.standard_normal(3))]
        X = rng.standard_normal((5, 4))
        pair = (rng.standard_normal(3), rng.standard_normal(3))
        for i in range(4):
            if i == 2:
                params[1] = (params[1][0] * 2.0, params[1][1])  # rebound item
            print(forward(params, X).tobytes().hex())
            print(swap(pair, 0.5).tobytes().hex())
            print(layers(params, X).tobytes().hex())
    """ + REPORT)
    rows = rows_of(proc)
    for name in ("forward", "swap", "layers"):
        assert rows[name]["state"] == "compiled", rows[name]
        assert rows[name]["graph_runs"] >= 3, rows[name]


def test_unpacking_a_list_whose_length_changes(tmp_path):
    # A list can change length between calls: the length guard misses and the
    # call runs in CPython (which raises the same ValueError on a mismatch).
    proc = differential(tmp_path, """
        import numpy as np
        def two(lst):
            a, b = lst
            return a * 2.0 + b
        def total(lst):
            s = np.zeros(3)
            for a in lst:
                s = s + a
            return s
        def starred(lst):
            a, *rest = lst
            return a
        lst = [np.arange(3.0), np.ones(3)]
        for n in (2, 2, 3, 2, 1, 2, 4, 2):
            while len(lst) < n:
                lst.append(np.full(3, float(len(lst))))
            del lst[n:]
            try:
                print("two", two(lst).tobytes().hex())
            except ValueError as e:
                print("two raised", e)
            print("total", total(lst).tobytes().hex())
            print("starred", starred(lst).tobytes().hex())
    """ + REPORT)
    rows = rows_of(proc)
    assert rows["two"]["guard_misses"] >= 1, rows["two"]
    assert rows["two"]["graph_runs"] >= 3, rows["two"]
    assert rows["total"]["guard_misses"] >= 1 and rows["total"]["graph_runs"] >= 3, rows["total"]
    assert rows["starred"]["state"] == "not_convertible", rows["starred"]
    assert "starred assignment target" in rows["starred"]["reason"], rows["starred"]


def test_repeated_work_of_an_unrolled_loop_runs_once(tmp_path):
    # The engine folds, merges and drops repeated nodes before compiling
    # (backend_choice.cpp): the product and the constants of an unrolled loop
    # are one node each, and the results stay NumPy's bits.
    proc = differential(tmp_path, """
        import numpy as np
        def f(W, v):
            acc = np.zeros(4)
            for k in range(5):
                acc = acc + (W @ v) * 2.0 + 1.0
            return acc
        W = np.arange(16.0).reshape(4, 4) / 7.0; v = np.arange(4.0) - 1.5
        for _ in range(4):
            r = f(W, v)
        print(r.tobytes().hex())
    """ + REPORT + """
        try:
            dot = _specula.graph_dot("f")
        except LookupError:  # engine off
            dot = ""
        print("NODES" + _json.dumps([dot.count('"matmul'), dot.count('"constant')]))
    """)
    report, nodes = proc.stdout.split("REPORT")[1].split("NODES")
    assert {r["name"]: r for r in json.loads(report)}["f"]["graph_runs"] == 4
    matmuls, constants = json.loads(nodes)
    assert matmuls == 1 and constants == 2, proc.stdout
