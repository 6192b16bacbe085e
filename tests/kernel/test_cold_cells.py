"""What the engine costs cells it never compiles (DESIGN invariant 4): a loop
refused as not convertible stops entering the engine once that verdict is in,
and still reports why; a cell run again reuses its transformed tree; a
session that never imports NumPy never has it imported by the engine."""

import os

import pytest

from kernel_harness import execute, outputs, start_kernel, stop_kernel
from test_cell_loops import MODES, _report, _stdout, kernels  # noqa: F401 (fixture)

WORDS = ("import numpy as np\nimport random\nrw = random.Random(0)\n"
         "words = [''.join(rw.choice(['ka', 'lo', 'mi', 'ne']) for _ in range(rw.randint(1, 3)))"
         " for _ in range(5000)]")
COUNT = ("print(get_ipython().execution_count)\n"
         "counts = {}\n"
         "for w in words:\n"
         "    counts[w] = counts.get(w, 0) + 1")


def _loop_row(kc, name):
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == name]
    assert len(rows) == 1, [(r["name"], r["kind"]) for r in _report(kc)]
    return rows[0]


@pytest.mark.parametrize("mode", ["thr0", "default"])
def test_a_refused_loop_stops_entering_the_engine_and_says_why(kernels, mode):
    km, kc = kernels[mode]
    execute(kc, "%reset -f", store_history=False)
    reply, _ = execute(kc, WORDS)
    assert reply["status"] == "ok", reply
    reply, messages = execute(kc, COUNT)
    assert reply["status"] == "ok", reply
    name = f"In [{int(_stdout(messages))}], line 3"
    first = _loop_row(kc, name)
    assert first["state"] == "not_convertible", first
    assert first["reason"].startswith("not convertible: attribute .get of a dict object at "), first
    assert first["reason"].endswith(".py:4"), first
    assert first["compiles"] == 1 and first["graph_runs"] == 0 and first["fallbacks"] == 0, first
    # Run again (the same source: the same region): the loop runs as written
    # without one call into the engine, so none of its counters move.
    for _ in range(3):
        reply, _ = execute(kc, COUNT)
        assert reply["status"] == "ok", reply
    assert _loop_row(kc, name) == first
    reply, messages = execute(kc, "from collections import Counter\nprint(counts == Counter(words))")
    assert _stdout(messages).splitlines()[-1] == "True"


def test_a_cell_run_again_reuses_its_transformed_tree(kernels):
    km, kc = kernels["default"]
    execute(kc, "%reset -f", store_history=False)
    probe = ("from specula import cell_loops as _cl\n"
             "print(len(_cl._loops), len(get_ipython().ast_transformers[0].m_done))")
    cell = "acc = 0\nfor k in range(4):\n    acc += k\nacc"
    reply, messages = execute(kc, cell)
    assert reply["status"] == "ok", reply
    shown = [o["data"]["text/plain"] for o in outputs(messages, "execute_result")]
    _, messages = execute(kc, probe, store_history=False)
    loops, cached = map(int, _stdout(messages).split())
    for _ in range(2):
        reply, messages = execute(kc, cell)
        assert [o["data"]["text/plain"] for o in outputs(messages, "execute_result")] == shown == ["6"]
    _, messages = execute(kc, probe, store_history=False)
    # No new region, no new cache entry: the cell's tree came from the cache.
    assert list(map(int, _stdout(messages).split())) == [loops, cached]


def test_the_cached_tree_is_not_changed_by_ipython(kernels):
    """IPython appends the displayed assignment to the body it is handed in
    'last_expr_or_assign' mode: a cell run again must not show it twice."""
    km, kc = kernels["default"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "%config InteractiveShell.ast_node_interactivity = 'last_expr_or_assign'")
    try:
        cell = "tot = 1\nfor k in range(3):\n    tot *= 2\nshown = tot + k"
        for _ in range(3):
            reply, messages = execute(kc, cell)
            assert reply["status"] == "ok", reply
            assert [o["data"]["text/plain"] for o in outputs(messages, "execute_result")] == ["10"]
    finally:
        execute(kc, "%config InteractiveShell.ast_node_interactivity = 'last_expr'")


HOT_PURE_PYTHON = ("def f(n):\n    s = 0\n    for i in range(n):\n        s += i * i\n    return s\n"
                   "for k in range(5):\n    r = f(1000)\n"
                   "acc = 0\nfor i in range(3000):\n    acc += i\n"
                   "import sys\nprint(r, acc, 'numpy' in sys.modules)")


@pytest.mark.parametrize("mode", ["off", "thr0", "default"])
def test_the_engine_never_imports_numpy_itself(mode):
    """Importing NumPy is a visible effect (sys.modules, ~0.1 s): hot loops and
    functions of a session without NumPy run in CPython, as in ipykernel."""
    env = dict(os.environ)
    for key in ("SPECULA_ENGINE", "SPECULA_THRESHOLD", "SPECULA_COST_CHECK"):
        env.pop(key, None)
    env.update(MODES[mode])
    km, kc = start_kernel(env=env)
    try:
        for _ in range(2):
            reply, messages = execute(kc, HOT_PURE_PYTHON)
            assert reply["status"] == "ok", reply
            assert _stdout(messages) == "332833500 4498500 False\n"
        reply, messages = execute(kc, "import numpy as np\n" + HOT_PURE_PYTHON)
        assert reply["status"] == "ok", reply
        assert _stdout(messages) == "332833500 4498500 True\n"
    finally:
        stop_kernel(km, kc)
