"""Recursion over tree objects compiles once and serves trees of every shape.

The differential programs (programs/tree_recursion_*.py) prove the results equal
CPython's; this file checks what the engine did with them: one graph compiled and
reused for every tree shape, also when a non-recursive caller runs the recursion
inside its own graph, and trees that break an assumption (another node class, a
shared or cyclic structure) run in CPython without a recompile, the report naming
why.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import specula

    rng = np.random.default_rng(1)

    class Node:
        def __init__(self, word=None, left=None, right=None):
            self.word, self.left, self.right = word, left, right

        def is_leaf(self):
            return self.word is not None

    class Other(Node):
        pass

    def grow(n, cls=Node):
        if n == 1:
            return cls(word=int(rng.integers(20)))
        k = int(rng.integers(1, n))
        return cls(left=grow(k, cls), right=grow(n - k, cls))

    L = rng.standard_normal((20, 4))
    W = rng.standard_normal((4, 8))

    def encode(node, emb, w):
        if node.is_leaf():
            return emb[node.word]
        h = np.concatenate([encode(node.left, emb, w), encode(node.right, emb, w)])
        return np.tanh(w @ h)

    def row():
        return [r for r in specula.report() if r["name"] == "encode"][0]

    sizes = sorted({int(rng.integers(2, 30)) for _ in range(40)})
    for n in sizes:
        encode(grow(n), L, W)
    after_shapes = row()
    compiles = specula.explain("encode").split(" compile(s)")[0].rsplit(" ", 1)[-1]

    mixed = grow(5)
    mixed.left = grow(3, Other)
    encode(mixed, L, W)
    after_class = row()

    sub = grow(3)
    shared = Node(left=sub, right=sub)
    encode(shared, L, W)
    after_shared = row()
    compiles_after = specula.explain("encode").split(" compile(s)")[0].rsplit(" ", 1)[-1]

    # A non-recursive caller: the recursion's loop inside the caller's graph.
    def loss(root, emb, w):
        h = encode(root, emb, w)
        return float((h * h).sum())

    for n in sizes:
        loss(grow(n), L, W)
    after_caller = [r for r in specula.report() if r["name"] == "loss"][0]
    caller_compiles = specula.explain("loss").split(" compile(s)")[0].rsplit(" ", 1)[-1]
    loss(shared, L, W)
    caller_shared = [r for r in specula.report() if r["name"] == "loss"][0]

    print(json.dumps({"sizes": len(sizes), "after_shapes": after_shapes,
                      "compiles": int(compiles), "after_class": after_class,
                      "after_shared": after_shared,
                      "compiles_after": int(compiles_after), "after_caller": after_caller,
                      "caller_compiles": int(caller_compiles),
                      "caller_shared": caller_shared}))
""")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One `python3 -m specula` run of SCRIPT (from a file: the converter reads source)."""
    path = tmp_path_factory.mktemp("tree") / "tree_script.py"
    path.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPECULA_")}
    env.update({"SPECULA_THRESHOLD": "0", "SPECULA_COST_CHECK": "off", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1"})
    proc = subprocess.run([sys.executable, "-m", "specula", str(path)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_one_graph_for_every_tree_shape(runs):
    r = runs
    shapes = r["after_shapes"]
    assert r["sizes"] >= 10
    assert shapes["state"] == "compiled", shapes["reason"]
    assert r["compiles"] == 1
    assert shapes["graph_runs"] == r["sizes"]
    assert shapes["guard_misses"] == 0 and shapes["fallbacks"] == 0


def test_trees_that_do_not_fit_run_in_cpython_without_recompiling(runs):
    r = runs
    cls, shared = r["after_class"], r["after_shared"]
    # The root's walk meets an Other node: CPython runs the call (its own
    # recursive calls are part of that run, never separate engine calls).
    assert cls["fallbacks"] == 1
    assert "tree node of class Other instead of Node" in cls["reason"]
    # A subtree reached twice: CPython, and no new specialisation for it.
    assert shared["fallbacks"] == 2
    assert "reached twice" in shared["reason"]
    assert shared["state"] == "compiled"
    assert r["compiles_after"] == r["compiles"]


def test_a_caller_runs_the_recursion_in_its_own_graph(runs):
    r = runs
    caller = r["after_caller"]
    assert caller["state"] == "compiled", caller["reason"]
    assert r["caller_compiles"] == 1
    assert caller["graph_runs"] == r["sizes"]
    assert caller["guard_misses"] == 0 and caller["fallbacks"] == 0
    shared = r["caller_shared"]
    assert shared["fallbacks"] == 1
    assert "reached twice" in shared["reason"]
