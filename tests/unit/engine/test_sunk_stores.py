"""Sunk stores (engine/README.md, "Results and the write buffer"): an in-place
update of a user's array is written straight into it by the graph, with no copy
at commit, only when nothing can fail after it and nothing else can see the
difference. Every program runs with the engine on and off and must print the same
bytes; the report's `sunk_stores` says whether the store was sunk, so each test
also proves which path it took."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import differential  # noqa: E402

HEADER = """
        import json, warnings, numpy as np, specula
        rng = np.random.default_rng(7)
        def dump(*arrays):
            print(" ".join(a.dtype.str + a.tobytes().hex() for a in arrays))
"""
FOOTER = """
        print("REPORT" + json.dumps(specula.report()))
"""


def run(tmp_path, body):
    return differential(tmp_path, HEADER + body + FOOTER)


def row_of(proc, name):
    rows = json.loads(proc.stdout.split("REPORT")[1])
    found = [r for r in rows if r["name"] == name]
    assert found, rows
    return found[0]


def test_sgd_updates_are_sunk_when_numpy_ignores_fp_errors(tmp_path):
    proc = run(tmp_path, """
        np.seterr(all="ignore")
        params = {"W": rng.standard_normal((64, 32)), "b": np.ones(32, np.float32)}
        grads = {"W": rng.standard_normal((64, 32)), "b": np.full(32, 0.5, np.float32)}
        def step(params, grads, lr):
            for name in ("W", "b"):
                params[name] -= lr * grads[name]
        for i in range(30):
            step(params, grads, 0.01)
        dump(params["W"], params["b"])
    """)
    row = row_of(proc, "step")
    assert row["graph_runs"] >= 20, row
    assert row["sunk_stores"] == 2 * row["graph_runs"], row


def test_default_errstate_keeps_the_copy(tmp_path):
    # NumPy warns on overflow by default: CPython must be able to rerun the
    # call after the graph, so the user's array may not be written early.
    proc = run(tmp_path, """
        w = rng.standard_normal(1000)
        g = rng.standard_normal(1000)
        def step(w, g):
            w -= 0.1 * g
        for i in range(30):
            step(w, g)
        dump(w)
    """)
    row = row_of(proc, "step")
    assert row["graph_runs"] >= 20 and row["sunk_stores"] == 0, row


def test_an_fp_error_leaves_the_array_to_cpython(tmp_path):
    # The same update overflows on the last calls: with warnings on it is not
    # sunk and CPython reruns the call from the untouched array (warning
    # included); with every category ignored it is sunk and gives NumPy's inf.
    proc = run(tmp_path, """
        def step(w, g, k):
            w *= k * g
        w, g = np.ones(500), np.full(500, 2.0)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            for i in range(30):
                step(w, g, 1e300 if i >= 25 else 1.0)
        print([str(x.message) for x in seen])
        dump(w)
        with np.errstate(all="ignore"):
            v = np.ones(500)
            for i in range(30):
                step(v, g, 1e300 if i >= 25 else 1.0)
        dump(v)
    """)
    row = row_of(proc, "step")
    assert row["sunk_stores"] > 0, row
    assert "overflow encountered in multiply" in proc.stdout


def test_an_assert_after_the_store_leaves_the_array_untouched(tmp_path):
    # The assert reads the gradient, not the updated array, so the store is a
    # sinking candidate; when it fails, CPython runs the call from the
    # untouched array and raises after updating it once, as written.
    proc = run(tmp_path, """
        np.seterr(all="ignore")
        def step(w, g):
            w -= 0.5 * g
            assert g.max() < 100.0, "exploding gradient"
        w, g = np.zeros(300), np.ones(300)
        for i in range(30):
            if i == 27:
                g[7] = 1e6
            try:
                step(w, g)
            except AssertionError as e:
                print(i, e)
            dump(w)
    """)
    row = row_of(proc, "step")
    assert row["sunk_stores"] > 0 and row["assert_failures"] > 0, row


def test_stores_that_must_not_be_sunk_keep_the_copy(tmp_path):
    proc = run(tmp_path, """
        np.seterr(all="ignore")
        def strided(v):           # the target is a view with strides
            v -= 1.0
        def printed(w, g, k):     # a print comes first in program order
            print("step", k)
            w -= g
        def reread(w, g):         # the updated array is read again
            w -= g
            return float(w.sum())
        def transposed(x):        # the new value reads the target transposed
            np.multiply(x.T, 0.5, out=x)
        base, w, g = np.zeros((40, 40)), np.zeros(200), np.full(200, 0.25)
        x = np.arange(1600.0).reshape(40, 40)
        for i in range(25):
            strided(base[:, ::2])
            printed(w, g, i)
            print(reread(w, g))
            transposed(x)
        dump(base, w, x)
    """)
    for name in ("strided", "printed", "reread", "transposed"):
        row = row_of(proc, name)
        assert row["graph_runs"] > 0 and row["sunk_stores"] == 0, row


def test_returned_target_and_dtype_cast_agree_with_cpython(tmp_path):
    proc = run(tmp_path, """
        np.seterr(all="ignore")
        def returned(w, g):
            w -= g
            return w
        def cast(w32, g64):
            w32 -= g64
        w, g = np.zeros(100), np.full(100, 0.3)
        w32 = np.zeros(100, np.float32)
        for i in range(25):
            r = returned(w, g)
            print(r is w)
            cast(w32, g)
        dump(w, w32)
    """)
    assert row_of(proc, "returned")["graph_runs"] > 0
