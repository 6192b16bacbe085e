"""Loops in cells and cells run again as engine regions: the same cell
programs run through the kernel with the engine off, on at
SPECULA_THRESHOLD=0 and on at the default threshold. Every reply, output message (streams, displayed results, errors
with their tracebacks) and the final globals (arrays bit for bit) must be
identical; with the engine on, the loops meant to run as graphs must show
graph runs in specula.report()."""

import json
import os
import re
import time

import pytest

from cell_programs import PROGRAMS as CELL_PROGRAMS
from exit_programs import PROGRAMS as EXIT_PROGRAMS
from kernel_harness import collect, execute, shell_reply, start_kernel, stop_kernel

# thr0 keeps every graph (no cost check): its graph counts are deterministic.
# default is what users get, cost check included (a loop goes back to CPython
# only after 5 timed graph iterations, so it still shows graph runs).
MODES = {
    "off": {"SPECULA_ENGINE": "off"},
    "thr0": {"SPECULA_THRESHOLD": "0", "SPECULA_COST_CHECK": "off"},
    "default": {},
}
# Cell files are /tmp/xpython_<pid>/<hash>.py: the pid differs per kernel.
_PID = re.compile(r"xpython_\d+")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

# Every user global, arrays as dtype/shape/bytes: equal means bit-identical.
SNAPSHOT = """
def _specula_snapshot():
    import json, types, numpy
    skip = {'In', 'Out', 'exit', 'quit', 'get_ipython', 'rng'}
    out = {}
    for k, v in sorted(globals().items()):
        if k.startswith('_') or k in skip or isinstance(v, (types.ModuleType, types.FunctionType, type)):
            continue
        if isinstance(v, numpy.ndarray):
            out[k] = ['ndarray', str(v.dtype), list(v.shape), v.tobytes().hex()]
        elif isinstance(v, list):
            out[k] = ['list', [repr(type(e)) + repr(e) for e in v]]
        else:
            out[k] = [repr(type(v)), repr(v)]
    return json.dumps(out, sort_keys=True)
print(_specula_snapshot())
del _specula_snapshot
"""

REPORT = "import specula, json\nprint(json.dumps(specula.report()))"


def _normalise(text):
    return _ADDRESS.sub("0x?", _PID.sub("xpython_?", text))


def _message_summary(messages):
    """What a user sees of a cell: streams (joined per name, since the
    coalescer's timing may split them differently), results, displays, errors."""
    streams = {}
    shown = []
    for m in messages:
        kind, content = m["msg_type"], m["content"]
        if kind == "stream":
            streams[content["name"]] = streams.get(content["name"], "") + content["text"]
        elif kind in ("execute_result", "display_data"):
            shown.append([kind, content["data"]])
        elif kind == "error":
            shown.append([kind, content["ename"], content["evalue"], content["traceback"]])
    return json.loads(_normalise(json.dumps([streams, shown])))


def _reply_summary(reply):
    keep = {k: reply.get(k) for k in ("status", "ename", "evalue", "traceback")}
    return json.loads(_normalise(json.dumps(keep)))


@pytest.fixture(scope="module")
def kernels():
    started = {}
    try:
        for mode, extra in MODES.items():
            env = dict(os.environ)
            env.pop("SPECULA_ENGINE", None)
            env.pop("SPECULA_THRESHOLD", None)
            env.pop("SPECULA_COST_CHECK", None)
            env.update(extra)
            started[mode] = start_kernel(env=env)
        yield started
    finally:
        for km, kc in started.values():
            stop_kernel(km, kc)


def _stdout(messages):
    return "".join(m["content"]["text"] for m in messages
                   if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")


def _report(kc):
    reply, messages = execute(kc, REPORT, store_history=False)
    assert reply["status"] == "ok", reply
    return json.loads(_stdout(messages))


def _graph_runs(report, kind):
    return {(r["file"], r["line"], r["name"]): r["graph_runs"] for r in report if r["kind"] == kind}


def _run_program(kc, program):
    reply, _ = execute(kc, "%reset -f", store_history=False)
    assert reply["status"] == "ok", reply
    seen = []
    for cell in program.cells:
        reply, messages = execute(kc, cell, timeout=120)
        seen.append([_reply_summary(reply), _message_summary(messages)])
    reply, messages = execute(kc, SNAPSHOT, store_history=False)
    assert reply["status"] == "ok", reply
    return seen, json.loads(_stdout(messages))


PROGRAMS = CELL_PROGRAMS + EXIT_PROGRAMS


def _new_runs(before, after):
    return sum(n - before.get(key, 0) for key, n in after.items())


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_engine_on_equals_engine_off(kernels, program):
    results = {}
    for mode, (km, kc) in kernels.items():
        before = _report(kc)
        seen, final = _run_program(kc, program)
        after = _report(kc)
        results[mode] = (seen, final)
        if mode == "off":
            assert after == [], "the engine reported regions while off"
            continue
        loop_runs = _new_runs(_graph_runs(before, "loop"), _graph_runs(after, "loop"))
        if program.graphs:
            assert loop_runs > 0, f"{mode}: no loop iteration ran as a graph: {after}"
        if program.cell_graphs:
            cell_runs = _new_runs(_graph_runs(before, "cell"), _graph_runs(after, "cell"))
            assert cell_runs > 0, f"{mode}: no cell run again ran as a graph: {after}"
        for name in program.compiled_functions:
            runs = sum(r["graph_runs"] for r in after if r["kind"] == "function" and r["name"] == name)
            assert runs > 0, f"{mode}: {name} never ran as a graph: {after}"
    off_seen, off_final = results["off"]
    for mode in ("thr0", "default"):
        seen, final = results[mode]
        for index, (want, got) in enumerate(zip(off_seen, seen)):
            assert got == want, f"{mode}: cell {index} differs from the engine off"
        assert final == off_final, f"{mode}: final globals differ from the engine off"


def _loop_row(kc, setup, loop):
    """The report row of `loop` (a cell whose loop starts on its line 2), run
    in a fresh namespace after `setup`."""
    execute(kc, "%reset -f", store_history=False)
    reply, _ = execute(kc, setup)
    assert reply["status"] == "ok", reply
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n" + loop)
    assert reply["status"] == "ok", reply
    count = int(_stdout(messages))
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, rows
    return rows[0]


@pytest.mark.parametrize("mode", ["thr0", "default"])
def test_a_changing_counter_leaves_other_globals_specialised(kernels, mode):
    """The loop counter changes every iteration; the float global next to it
    does not, so it stays a constant and the float32 update (whose dtype a
    run-time Python float would make value-dependent) compiles once, not
    once per minibatch. Results are compared with the engine off elsewhere."""
    row = _loop_row(kernels[mode][1],
                    "import numpy as np\nlr = 0.05\nW = np.ones((4, 3), np.float32)\n"
                    "X = np.linspace(-1, 1, 160, dtype=np.float32).reshape(40, 4)",
                    "for k in range(8):\n"
                    "    xb = X[k * 5:(k + 1) * 5]\n"
                    "    W -= lr * (xb.T @ (xb @ W))")
    assert row["compiles"] == 1 and row["graph_runs"] >= 3, row


@pytest.mark.parametrize("mode", ["thr0", "default"])
def test_a_row_bound_to_a_name_compiles_once(kernels, mode):
    """`x = X[i]` leaves the name on NumPy's row view: the view is made before
    every run from the counter, so one graph serves every row (it used to
    specialise on every value of `i` and end blacklisted)."""
    row = _loop_row(kernels[mode][1],
                    "import numpy as np\nX = np.linspace(-1, 1, 400).reshape(100, 4)\n"
                    "w = np.zeros(4)",
                    "for i in range(100):\n"
                    "    x = X[i]\n"
                    "    w = w * 0.9 + 0.1 * x")
    assert row["state"] == "compiled", row
    assert row["compiles"] == 1 and row["graph_runs"] >= 90, row


@pytest.mark.parametrize("mode", ["thr0", "default"])
def test_an_inlined_branch_on_a_carried_int_compiles_per_outcome(kernels, mode):
    """`pos` changes every iteration and the inlined function branches on it:
    one graph per side of the branch, not one per value of `pos`."""
    km, kc = kernels[mode]
    execute(kc, "%reset -f", store_history=False)
    program = next(p for p in PROGRAMS if p.name == "inlined_branch_on_a_carried_int")
    reply, _ = execute(kc, program.cells[0])
    assert reply["status"] == "ok", reply
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n" + program.cells[1])
    assert reply["status"] == "ok", reply
    count = int(_stdout(messages).split()[0])
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 3"]
    assert len(rows) == 1, rows
    row = {k: rows[0][k] for k in ("state", "compiles", "graph_runs", "guard_misses", "reason")}
    assert row["compiles"] <= 3, row
    if mode == "thr0":  # no cost check: every iteration after the first compile
        assert row["state"] == "compiled" and row["graph_runs"] >= 20, row


def test_report_rows_for_loops(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    reply, _ = execute(kc, "import numpy as np\nzz = np.zeros(3)")
    # Cells are named by IPython's execution count (as %specula report names
    # them); the cell prints its own.
    reply, messages = execute(kc, "print(get_ipython().execution_count)\nfor jj in range(5):\n    zz = zz + 1.0")
    assert reply["status"] == "ok"
    count = int(_stdout(messages))
    report = _report(kc)
    rows = [r for r in report if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, [(r["name"], r["line"], r["graph_runs"]) for r in report]
    row = rows[0]
    assert row["line"] == 2 and row["state"] == "compiled" and row["graph_runs"] == 5
    assert row["time_graph_s"] > 0.0 and row["time_compile_s"] > 0.0
    reply, messages = execute(kc, "%specula report")
    assert reply["status"] == "ok"
    assert f"In [{count}], line 2" in _stdout(messages)


def test_engine_off_leaves_cells_untransformed(kernels):
    km, kc = kernels["off"]
    reply, messages = execute(kc, "import builtins\nprint(hasattr(builtins, '__specula_loop__'), "
                                  "len(get_ipython().ast_transformers))")
    assert _stdout(messages) == "False 0\n"


def _interrupt_loop(km, kc, code, running):
    """Interrupt `code` once it has printed `running`: a fixed sleep from the
    start can end before a loaded machine has run one iteration."""
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and running in msg["content"]["text"]):
            break
    time.sleep(0.2)  # into the loop's graph iterations past the print
    km.interrupt_kernel()
    # The loop runs (practically) forever unless interrupted.
    reply = shell_reply(kc, msg_id, timeout=60)
    collect(kc, msg_id)
    return reply["content"]


def check_interrupted_loop(km, kc, setup, loop, check, ran="graph_runs", name_prefix=""):
    """Runs `setup`, then `loop` (which prints 'running' once it runs) until
    an interrupt, which must reach the user. `check` prints its verdicts on
    its last line: every one must be True (the state of a whole number of
    iterations; IPython may print a history-database notice first). A loop
    row whose name starts with `name_prefix` must show `ran` > 0."""
    execute(kc, "%reset -f", store_history=False)
    execute(kc, setup)
    content = _interrupt_loop(km, kc, loop, "running")
    assert content["status"] == "error" and content["ename"] == "KeyboardInterrupt", content
    _, messages = execute(kc, check)
    verdicts = _stdout(messages).splitlines()[-1].split()
    assert verdicts and all(v == "True" for v in verdicts), _stdout(messages)
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"].startswith(name_prefix)
            and r.get(ran, 0) > 0]
    assert rows, f"the interrupted loop never ran ({ran} = 0)"


def test_interrupt_mid_loop_leaves_no_partial_iteration(kernels):
    # Every iteration that ran as a graph committed all of its three effects
    # or none of them.
    km, kc = kernels["thr0"]
    check_interrupted_loop(km, kc, "import numpy as np\na = np.zeros(1000)\nb = np.zeros(1000)\nsteps = 0",
                           "while steps < 10**12:\n"
                           "    a += 1.0\n"
                           "    b = b + a * 0.0 + 1.0\n"
                           "    steps += 1\n"
                           "    if steps == 200:\n"
                           "        print('running')",
                           "print(steps, a[0], b[0])\n"
                           "print(steps > 0, float(a[0]) == steps, bool((a == b).all()))")


def test_reset_makes_loops_enter_the_engine_again(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nimport specula, builtins\nzr = np.zeros(2)")
    loop = "for jr in range(5):\n    zr = zr + 1.0\nfor jd in range(3):\n    import math"
    execute(kc, loop)
    rows = {r["line"]: r for r in _report(kc) if r["kind"] == "loop" and r["file"].endswith(".py")
            and r["name"].endswith(("line 1", "line 3"))}
    assert rows[1]["graph_runs"] >= 5 and rows[3]["state"] == "not_convertible", rows
    execute(kc, "specula.reset()")
    reply, messages = execute(kc, "print(all(builtins.__specula_loops__))")
    assert _stdout(messages) == "True\n"
    before = {r["name"]: r["graph_runs"] for r in _report(kc) if r["kind"] == "loop"}
    assert not any(before.values()), before
    reply, _ = execute(kc, loop)
    assert reply["status"] == "ok"
    after = [r for r in _report(kc) if r["kind"] == "loop" and r["graph_runs"] == 5]
    assert after, _report(kc)


def test_a_changing_counter_compiles_once(kernels):
    # A counter used in `%`, `//` and as an index is an input of one graph,
    # not a value every iteration recompiles for (until 32 compiles).
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nqt = np.arange(12.0).reshape(6, 2)\nqa = np.zeros(2)")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for qi in range(40):\n"
                                  "    qa = qa + qt[qi % 6] * float(qi // 4) - qt[-1 - qi % 6]")
    assert reply["status"] == "ok"
    count = int(_stdout(messages))
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, [(r["name"], r["compiles"]) for r in _report(kc)]
    row = rows[0]
    assert row["state"] == "compiled" and row["compiles"] <= 2, row
    assert row["graph_runs"] >= 40 - 2, row


def test_a_counter_branch_and_counter_indexed_lists_compile_at_most_twice(kernels):
    # `if i % 10 == 0: print(...)` is keyed on the branch taken (a guard on
    # its outcome), and `hs[i + 1]` reads the item the counter picks at run
    # time: neither recompiles per value of the counter.
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nqh = [np.full(2, float(k)) for k in range(41)]\nqb = np.zeros(2)")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for qi in range(40):\n"
                                  "    qb = qb * 0.5 + qh[qi + 1] - qh[qi]\n"
                                  "    if qi % 10 == 0:\n"
                                  "        print(qi, qb)")
    assert reply["status"] == "ok"
    count = int(_stdout(messages).splitlines()[0])
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, [(r["name"], r["compiles"]) for r in _report(kc)]
    row = rows[0]
    assert row["state"] == "compiled" and row["compiles"] <= 2, row
    assert row["graph_runs"] >= 40 - 2, row


def test_an_and_of_counter_conditions_compiles_at_most_twice(kernels):
    # `if step % 50 == 0 and step > 0:` is one condition whose outcome one
    # guard decides: two specialisations (taken, not taken), not one per
    # value of the counter nor one per combination of its operands.
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nqw = np.ones(3)")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for step in range(160):\n"
                                  "    qw = qw * 0.999\n"
                                  "    if step % 50 == 0 and step > 0:\n"
                                  "        print(step, qw.sum())")
    assert reply["status"] == "ok"
    lines = _stdout(messages).splitlines()
    count = int(lines[0])
    assert [line.split()[0] for line in lines[1:]] == ["50", "100", "150"], lines
    reply, messages = execute(kc, "%specula report")
    assert reply["status"] == "ok" and f"In [{count}], line 2" in _stdout(messages)
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, [(r["name"], r["compiles"]) for r in _report(kc)]
    row = rows[0]
    assert row["state"] == "compiled" and row["compiles"] <= 2, row
    assert row["graph_runs"] >= 160 - 2, row


def test_counter_indexed_item_writes_compile_at_most_twice(kernels):
    # `hs[t + 1] = ...` on a list and `d[t] = ...` on a dict: the index is
    # computed by the guards, not a value each iteration recompiles for.
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nqs = [np.zeros(2) for _ in range(41)]\nqd = {}")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for qi in range(40):\n"
                                  "    qs[qi + 1] = qs[qi] * 0.5 + 1.0\n"
                                  "    qd[qi] = qs[qi + 1].sum()")
    assert reply["status"] == "ok"
    count = int(_stdout(messages))
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line 2"]
    assert len(rows) == 1, [(r["name"], r["compiles"]) for r in _report(kc)]
    row = rows[0]
    assert row["state"] == "compiled" and row["compiles"] <= 2, row
    assert row["graph_runs"] >= 40 - 2, row


# Interrupts the engine's description of the next loop once: the SIGINT
# handler raising inside `cell_loops.describe`, which the engine runs the
# first time a loop starts.
_INTERRUPT_DESCRIPTION = """import specula.cell_loops as _qcl
_qreal = _qcl.describe
def _qinterrupting(loop_id):
    if _qcl._loops[loop_id][4] != 'loop':
        return _qreal(loop_id)
    _qcl.describe = _qreal
    raise KeyboardInterrupt
_qcl.describe = _qinterrupting
"""


def test_an_interrupt_while_a_loop_is_described_reaches_the_user(kernels):
    """A KeyboardInterrupt raised while the engine describes a loop is the
    user's: the cell raises it at the loop before any iteration ran, with the
    cell's frames only, and the loop is described again at its next start
    (then runs as a graph). The final globals are the engine off's without
    the interrupted run."""
    setup = "import numpy as np\nqk = np.zeros(3)\nqlog = []"
    # (The import keeps the cell, run again, from running as one graph: the
    # loop itself starts.)
    loop = "import math\nfor qi in range(6):\n    qk += 1.5\n    qlog.append(float(qk.sum()))"
    finals = {}
    for mode in ("off", "thr0"):
        km, kc = kernels[mode]
        execute(kc, "%reset -f", store_history=False)
        reply, _ = execute(kc, setup)
        assert reply["status"] == "ok", reply
        if mode == "thr0":
            reply, _ = execute(kc, _INTERRUPT_DESCRIPTION)
            assert reply["status"] == "ok", reply
            reply, _ = execute(kc, loop)
            assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
            frames = "\n".join(reply["traceback"])
            assert "_qinterrupting" not in frames and "cell_loops" not in frames, frames
            reply, messages = execute(kc, "print(len(qlog), qk.sum())")
            assert _stdout(messages) == "0 0.0\n", _stdout(messages)
        before = _graph_runs(_report(kc), "loop")
        reply, _ = execute(kc, loop)
        assert reply["status"] == "ok", reply
        if mode == "thr0":
            after = _report(kc)
            assert _new_runs(before, _graph_runs(after, "loop")) > 0, after
        reply, messages = execute(kc, SNAPSHOT, store_history=False)
        finals[mode] = json.loads(_stdout(messages))
    assert finals["thr0"] == finals["off"]
