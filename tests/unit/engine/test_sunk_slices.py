"""Sunk slice stores (engine/README.md, "Results and the write buffer"): a slice
assignment into a user's array (`u_new[1:-1, 1:-1] = v`) runs as a graph that
computes only the slice's values; the commit assigns them to the user's array
once. Every program runs with the engine on and off and must print the same
bytes; the graph the engine runs (specula.graph_dot) shows whether the
SLICE_UPDATE of the whole array was sunk, so each test also proves which path
it took."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import differential  # noqa: E402

HEADER = """
        import json, numpy as np, specula
        rng = np.random.default_rng(5)
        def dump(*arrays):
            print(" ".join(a.dtype.str + a.tobytes().hex() for a in arrays))
"""
FOOTER = """
        def graph_has_slice_update(name):
            try:
                return "slice_update" in specula.graph_dot(name)
            except LookupError:
                return None
        print("REPORT" + json.dumps({r["name"]: dict(r, slice_update=graph_has_slice_update(r["name"]))
                                     for r in specula.report()}))
"""


def run(tmp_path, body, threshold="0"):
    return differential(tmp_path, HEADER + body + FOOTER, threshold)


def row_of(proc, name):
    rows = json.loads(proc.stdout.split("REPORT")[1])
    assert name in rows, rows
    return rows[name]


@pytest.mark.parametrize("threshold", ["0", "2"])
def test_heat_step_stores_only_the_slice(tmp_path, threshold):
    # NumPy's default error state (warn): the store is data movement only, so
    # it is sunk without np.seterr.
    proc = run(tmp_path, """
        def heat_step(u, u_new, alpha):
            u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (
                u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
        u = rng.random((40, 40))
        u_new = u.copy()
        for i in range(30):
            heat_step(u, u_new, 0.2)
            u, u_new = u_new, u
        dump(u, u_new)
    """, threshold)
    row = row_of(proc, "heat_step")
    assert row["graph_runs"] >= 20 and row["fallbacks"] == 0, row
    assert row["slice_update"] is False, row


def test_overlapping_source_reads_the_old_values(tmp_path):
    proc = run(tmp_path, """
        def shift(a, b):
            a[1:] = a[:-1]
            b[:-2, 1:] = b[2:, :-1] * 3.0
        for i in range(25):
            a = np.arange(12.0) + i
            b = np.arange(30.0).reshape(6, 5) - i
            shift(a, b)
            dump(a, b)
    """)
    row = row_of(proc, "shift")
    assert row["graph_runs"] >= 20 and row["slice_update"] is False, row


def test_a_read_of_the_stored_array_keeps_the_update_in_the_graph(tmp_path):
    proc = run(tmp_path, """
        def step(u, v):
            v[1:-1] = u[1:-1] * 2.0
            return v.sum()
        u, v = rng.random(50), np.zeros(50)
        for i in range(25):
            print(step(u, v).hex())
            u += 1.0
        dump(v)
    """)
    row = row_of(proc, "step")
    assert row["graph_runs"] >= 20 and row["slice_update"] is True, row


def test_two_stores_into_one_array_keep_the_update_in_the_graph(tmp_path):
    proc = run(tmp_path, """
        def edges(u, v):
            v[0] = u[1] * 0.5
            v[1:, 2:] = u[:-1, :-2] + 1.0
        u, v = rng.random((8, 8)), np.zeros((8, 8))
        for i in range(25):
            edges(u, v)
            u *= 1.5
        dump(v)
    """)
    row = row_of(proc, "edges")
    assert row["graph_runs"] >= 20 and row["slice_update"] is True, row


def test_values_of_another_dtype_keep_the_update_in_the_graph(tmp_path):
    # NumPy casts at the assignment (and may warn there): not a commit step.
    proc = run(tmp_path, """
        def cast_store(u, v):
            v[2:] = u[:-2] * np.float32(2.0)
        u, v = rng.random(20).astype(np.float32), np.zeros(20)
        for i in range(25):
            cast_store(u, v)
            u += np.float32(0.5)
        dump(v)
    """)
    row = row_of(proc, "cast_store")
    assert row["graph_runs"] >= 20 and row["slice_update"] is True, row


def test_an_assert_after_the_store_writes_nothing_before_cpython(tmp_path):
    # CPython stores, then raises: the final state must be CPython's, with no
    # half-written or twice-written grid.
    proc = run(tmp_path, """
        def checked(u, u_new):
            u_new[1:-1, 1:-1] = u[1:-1, 1:-1] * 0.25 + u[2:, 1:-1] * 0.25
            assert u.max() < 10.0, "too hot"
        u, u_new = rng.random((10, 10)), np.zeros((10, 10))
        for i in range(30):
            if i == 25:
                u[3, 3] = 50.0
            try:
                checked(u, u_new)
            except AssertionError as e:
                print("assert", i, e)
            dump(u_new)
            u, u_new = u_new * 0.9, u
    """)
    row = row_of(proc, "checked")
    assert row["graph_runs"] >= 20 and row["slice_update"] is False, row
    assert "assert 25 too hot" in proc.stdout
