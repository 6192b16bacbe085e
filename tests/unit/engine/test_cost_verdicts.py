"""Per-specialisation cost verdicts, end to end: a region whose graph loses in
one situation keeps running its graph in the others. The call times are
injected (specula._engine._inject_cost), so the verdicts do not depend on the
machine's clock; results are compared with the engine off bit for bit."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import engine_harness  # noqa: E402


def differential(tmp_path, source):
    # The verdicts are what this file checks (the harness leaves the check off).
    return engine_harness.differential(tmp_path, source, cost_check="on")


# f has one specialisation per value of `mode` (a str is specialised on its
# value). The "slow" one is told its graph calls take 2 ms against 1 ms in
# CPython, the "fast" one 0.1 ms against 1 ms.
PROGRAM = """
        import json, numpy as np, specula
        def f(x, mode):
            if mode == "slow":
                return x * 2.0 + 1.0
            return x - 3.0
        x = np.arange(6.0)
        f(x, "slow"); f(x, "fast")
        inject = getattr(specula._engine, "_inject_cost")
        inject("f", "mode == 'slow'", {slow_graph}, 1e-3)
        inject("f", "mode == 'fast'", 1e-4, 1e-3)
        out = []
        for i in range({calls}):
            out.append(f(x, "slow").tobytes().hex())
            out.append(f(x, "fast").tobytes().hex())
        print(len(set(out)), out[0], out[1])
        print("REPORT" + json.dumps(specula.report()))
"""


def row_of(proc, name):
    rows = json.loads(proc.stdout.split("REPORT")[1])
    return [r for r in rows if r["name"] == name][0]


def by_situation(row):
    return {("slow" if "'slow'" in s["situation"] else "fast"): s for s in row["specialisations"]}


def program(slow_graph="2e-3", calls=30):
    return PROGRAM.replace("{slow_graph}", slow_graph).replace("{calls}", str(calls))


def test_a_slow_specialisation_goes_to_cpython_the_fast_one_stays(tmp_path):
    proc = differential(tmp_path, program())
    row = row_of(proc, "f")
    assert row["state"] == "compiled", row
    specs = by_situation(row)
    slow, fast = specs["slow"], specs["fast"]
    assert slow["verdict"] == "cpython", slow
    assert slow["reason"] == "graph slower than CPython (graph 2 ms vs CPython 1 ms per call)"
    assert fast["verdict"] == "graph" and fast["reason"] is None, fast
    # The slow situation ran as a graph only until judged (one run before
    # the injection, 5 after), then in CPython without recompiling; the fast
    # one kept running as a graph.
    assert slow["graph_runs"] == 1 + 5, slow
    assert slow["cpython_calls"] == 30 - 5, slow
    assert fast["graph_runs"] == 1 + 30 - 3 and fast["cpython_calls"] == 3, fast
    assert row["compiles"] == 2, row
    # Sent to CPython by the verdict (the slow situation's CPython calls but
    # the 3 samples taken while judging): a choice, not a fallback.
    assert row["cost_cpython_calls"] == slow["cpython_calls"] - 3, row
    assert row["fallbacks"] == 0, row
    assert row["reason"] == slow["reason"], row
    # Not final yet: the graph gets a new trial after 64 CPython calls.
    assert slow["cost_losses"] == 1 and slow["retry_after_calls"] == 64 - 25 + 3, slow
    assert fast["cost_losses"] == 0 and fast["retry_after_calls"] is None, fast
    assert slow["cost_unit"] == "call", slow
    # Time saved (graph calls x (median CPython - median graph)).
    assert fast["time_saved_s"] == (fast["graph_runs"] - 1) * (1e-3 - 1e-4)
    assert slow["time_saved_s"] == 5 * (1e-3 - 2e-3)
    assert row["time_saved_s"] == fast["time_saved_s"] + slow["time_saved_s"]


def test_the_region_goes_to_cpython_only_when_every_specialisation_lost(tmp_path):
    # Both lose every trial: 5 graph calls each (the first check, then after
    # 64 and 512 CPython calls), and the third loss is final.
    proc = differential(tmp_path, program(calls=700).replace("1e-4, 1e-3", "3e-3, 1e-3"))
    row = row_of(proc, "f")
    assert row["state"] == "blacklisted", row
    assert row["reason"].startswith("graph slower than CPython (graph "), row
    specs = by_situation(row)
    for spec in specs.values():
        assert spec["verdict"] == "cpython", spec
        assert spec["cost_losses"] == 3 and spec["retry_after_calls"] is None, spec
    assert specs["slow"]["graph_runs"] == 1 + 3 * 5, specs


def test_a_region_whose_graphs_lost_once_stays_compiled_for_their_new_trial(tmp_path):
    proc = differential(tmp_path, program(calls=40).replace("1e-4, 1e-3", "3e-3, 1e-3"))
    row = row_of(proc, "f")
    assert row["state"] == "compiled", row
    assert all(s["cost_losses"] == 1 and s["retry_after_calls"] > 0
               for s in row["specialisations"]), row


def test_explain_names_the_winner_and_the_loser(tmp_path):
    proc = differential(tmp_path, program().replace(
        'json.dumps(specula.report()))',
        'json.dumps(specula.report()) + "EXPLAIN" + (specula.explain("f") if specula.enabled() else ""))'))
    text = proc.stdout.split("EXPLAIN")[1]
    assert "mode == 'slow'" in text and "CPython wins" in text, text
    assert "mode == 'fast'" in text and "graph wins" in text, text


# A recursion over trees: the trees of one situation differ in size, so its
# graph and CPython calls are weighed per tree node. The injected times are
# per node; a whole call's time is the node time x the tree's nodes (39 or
# more: every call is above the 50 µs floor).
TREES = """
        import json, numpy as np, specula
        rng = np.random.default_rng(2)

        class Node:
            def __init__(self, word=None, left=None, right=None):
                self.word, self.left, self.right = word, left, right

        def grow(n):
            if n == 1:
                return Node(word=int(rng.integers(10)))
            k = int(rng.integers(1, n))
            return Node(left=grow(k), right=grow(n - k))

        def encode(node, emb, w):
            if node.word is not None:
                return emb[node.word]
            h = np.concatenate([encode(node.left, emb, w), encode(node.right, emb, w)])
            return np.tanh(w @ h)

        L = rng.standard_normal((10, 4))
        W = rng.standard_normal((4, 8))
        trees = [grow(int(n)) for n in rng.integers(20, 40, size=40)]
        encode(trees[0], L, W)
        specula._engine._inject_cost("encode", "", {graph_node}, 1e-5)
        out = [encode(t, L, W).tobytes().hex() for t in trees]
        print(len(out), out[0], out[-1])
        print("REPORT" + json.dumps(specula.report()))
"""


def test_a_recursion_over_trees_is_weighed_per_node(tmp_path):
    proc = differential(tmp_path, TREES.replace("{graph_node}", "2e-5"))
    (spec,) = row_of(proc, "encode")["specialisations"]
    assert spec["cost_unit"] == "tree node", spec
    assert spec["verdict"] == "cpython", spec
    assert spec["reason"] == ("graph slower than CPython "
                              "(graph 0.02 ms vs CPython 0.01 ms per tree node)"), spec
    assert spec["graph_median_s"] == 2e-5 and spec["cpython_median_s"] == 1e-5, spec

    proc = differential(tmp_path, TREES.replace("{graph_node}", "5e-6"))
    (spec,) = row_of(proc, "encode")["specialisations"]
    assert spec["verdict"] == "graph" and spec["cost_unit"] == "tree node", spec
    # Time saved: every node the graph calls ran x (CPython - graph) per node.
    assert spec["time_saved_s"] > 0, spec
