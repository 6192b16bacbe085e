"""On-stack replacement: loops inside functions defined in cells, for
functions called once. The programs run through the kernel with the engine
off, on at SPECULA_THRESHOLD=0 and on at the default threshold; every reply,
output message and the final globals must be identical, and with the engine
on the loops meant to run as graphs must show graph runs in the report."""

import pytest

from function_loop_programs import PROGRAMS
import time

from kernel_harness import collect, shell_reply
from test_cell_loops import (_graph_runs, _new_runs, _report, _run_program, _stdout, execute,
                             kernels)  # noqa: F401 (the fixture)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_engine_on_equals_engine_off(kernels, program):
    results = {}
    for mode, (km, kc) in kernels.items():
        before = _report(kc)
        results[mode] = _run_program(kc, program)
        after = _report(kc)
        if mode == "off":
            assert after == [], "the engine reported regions while off"
            continue
        if program.graphs:
            runs = _new_runs(_graph_runs(before, "loop"), _graph_runs(after, "loop"))
            if mode == "thr0":
                # At threshold 0 the first call of a function is compiled as a
                # whole when it can be: its loop then never runs in CPython.
                runs += _new_runs(_graph_runs(before, "function"), _graph_runs(after, "function"))
            assert runs > 0, f"{mode}: no loop iteration ran as a graph: {after}"
    off_seen, off_final = results["off"]
    for mode in ("thr0", "default"):
        seen, final = results[mode]
        for index, (want, got) in enumerate(zip(off_seen, seen)):
            assert got == want, f"{mode}: cell {index} differs from the engine off"
        assert final == off_final, f"{mode}: final globals differ from the engine off"


def _loop_rows(kc, function):
    return [r for r in _report(kc) if r["kind"] == "loop" and r["name"].startswith(function + ", line ")]


def test_report_names_the_function_and_line(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    # The `try` keeps the function as a whole in CPython (even at threshold
    # 0), so its loop is entered in the middle of the running frame.
    reply, _ = execute(kc, "import numpy as np\n"
                           "def osr_once(z):\n"
                           "    try:\n"
                           "        for t in range(7):\n"
                           "            z = z * 0.5 + 1.0\n"
                           "    finally:\n"
                           "        pass\n"
                           "    return z, t\n"
                           "print(osr_once(np.zeros(3)))")
    assert reply["status"] == "ok", reply
    rows = _loop_rows(kc, "osr_once")
    assert [(r["name"], r["line"], r["state"], r["graph_runs"]) for r in rows] == \
        [("osr_once, line 4", 4, "compiled", 7)]
    assert rows[0]["time_graph_s"] > 0.0
    reply, messages = execute(kc, "%specula explain osr_once, line 4")
    assert reply["status"] == "ok", reply
    assert _stdout(messages).startswith("osr_once, line 4 (loop at In ["), _stdout(messages)


def test_closure_is_reported(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    reply, _ = execute(kc, "import numpy as np\n"
                           "def osr_closure(n):\n"
                           "    w = np.ones(2)\n"
                           "    g = lambda: w\n"
                           "    for t in range(n):\n"
                           "        w = w + 1.0\n"
                           "    return g()\n"
                           "osr_closure(4)")
    assert reply["status"] == "ok", reply
    rows = _loop_rows(kc, "osr_closure")
    assert len(rows) == 1 and rows[0]["state"] == "not_convertible", rows
    assert "local w rebound in the loop while a nested function or comprehension captures it" \
        in rows[0]["reason"], rows
    assert rows[0]["graph_runs"] == 0


def test_generator_and_locals_user_are_not_instrumented(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    reply, messages = execute(kc, "import dis\n"
                                  "def osr_gen(n):\n"
                                  "    for t in range(n):\n"
                                  "        yield t\n"
                                  "def osr_plain(n):\n"
                                  "    for t in range(n):\n"
                                  "        pass\n"
                                  "def osr_locals(n):\n"
                                  "    for t in range(n):\n"
                                  "        pass\n"
                                  "    return locals()\n"
                                  "def calls(f):\n"
                                  "    return {i.argval for i in dis.get_instructions(f) if i.opname == 'LOAD_GLOBAL'}\n"
                                  "print(sorted(calls(osr_gen)), '__specula_loop__' in calls(osr_plain),\n"
                                  "      sorted(calls(osr_locals)))")
    assert reply["status"] == "ok", reply
    assert "['range'] True ['locals', 'range']" in _stdout(messages).splitlines(), _stdout(messages)


def _interrupt_when_printed(km, kc, code, marker):
    """Runs `code`, interrupts it once it printed `marker` (and had some
    time to run on), returns the reply's content."""
    msg_id = kc.execute(code)
    while True:
        msg = kc.get_iopub_msg(timeout=60)
        if (msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream"
                and marker in msg["content"]["text"]):
            break
    time.sleep(1.0)  # into the loop's graph iterations
    km.interrupt_kernel()
    reply = shell_reply(kc, msg_id, timeout=60)
    collect(kc, msg_id)
    return reply["content"]


def test_interrupt_mid_loop_in_a_function(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nstate = {}")
    content = _interrupt_when_printed(km, kc, "def spin(a, b):\n"
                                      "    steps = 0\n"
                                      "    print('spinning', flush=True)\n"
                                      "    try:\n"
                                      "        while steps < 10**12:\n"
                                      "            a += 1.0\n"
                                      "            b = b + a * 0.0 + 1.0\n"
                                      "            steps += 1\n"
                                      "    finally:\n"
                                      "        state.update(steps=steps, a=a, b=b)\n"
                                      "spin(np.zeros(1000), np.zeros(1000))", "spinning")
    assert content["status"] == "error" and content["ename"] == "KeyboardInterrupt", content
    reply, messages = execute(kc, "s, a, b = state['steps'], state['a'], state['b']\n"
                                  "print(s > 0, float(a[0]) == s, bool((a == b).all()))")
    # The locals the `finally` sees are those of a whole number of
    # iterations: the interrupted one left nothing behind.
    # (IPython may print a history-database notice before or after it.)
    assert reply["status"] == "ok", reply
    assert "True True True" in _stdout(messages).splitlines(), _stdout(messages)
    rows = [r for r in _loop_rows(kc, "spin") if r["graph_runs"] > 0]
    assert rows, "the interrupted loop never ran as a graph"
