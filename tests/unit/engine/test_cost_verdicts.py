"""Per-specialisation cost verdicts, end to end: a region whose graph loses in
one situation keeps running its graph in the others. The call times are
injected (specula._engine._inject_cost), so the verdicts do not depend on the
machine's clock; results are compared with the engine off bit for bit."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import differential  # noqa: E402

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
        for i in range(30):
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


def test_a_slow_specialisation_goes_to_cpython_the_fast_one_stays(tmp_path):
    proc = differential(tmp_path, PROGRAM.replace("{slow_graph}", "2e-3"))
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
    assert row["fallbacks"] >= 20, row
    assert row["reason"] == slow["reason"], row
    # Time saved (graph calls x (median CPython - median graph)).
    assert fast["time_saved_s"] == (fast["graph_runs"] - 1) * (1e-3 - 1e-4)
    assert slow["time_saved_s"] == 5 * (1e-3 - 2e-3)
    assert row["time_saved_s"] == fast["time_saved_s"] + slow["time_saved_s"]


def test_the_region_goes_to_cpython_only_when_every_specialisation_lost(tmp_path):
    proc = differential(tmp_path, PROGRAM.replace("{slow_graph}", "2e-3")
                        .replace("1e-4, 1e-3", "3e-3, 1e-3"))
    row = row_of(proc, "f")
    assert row["state"] == "blacklisted", row
    assert row["reason"].startswith("graph slower than CPython (graph "), row
    specs = by_situation(row)
    assert specs["slow"]["verdict"] == "cpython" and specs["fast"]["verdict"] == "cpython", specs


def test_explain_names_the_winner_and_the_loser(tmp_path):
    proc = differential(tmp_path, PROGRAM.replace("{slow_graph}", "2e-3").replace(
        'json.dumps(specula.report()))',
        'json.dumps(specula.report()) + "EXPLAIN" + (specula.explain("f") if specula.enabled() else ""))'))
    text = proc.stdout.split("EXPLAIN")[1]
    assert "mode == 'slow'" in text and "CPython wins" in text, text
    assert "mode == 'fast'" in text and "graph wins" in text, text
