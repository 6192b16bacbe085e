"""Training loops over text (text_programs.py) through the kernel, engine off,
on at threshold 0 and on at the default threshold: every reply, output and
the final globals must be identical (arrays bit for bit). With the engine on
at threshold 0, the loop mapping a str slice through a dict must run its
iterations as graphs (its report row gains graph runs), so the comprehension,
the inlined function, the Adagrad updates and the reset branch converted."""

import json

import pytest

from kernel_harness import execute
from test_cell_loops import SNAPSHOT, _message_summary, _reply_summary, _report, _stdout
from test_cell_loops import kernels  # noqa: F401 (the fixture)
from text_programs import PROGRAMS


def _run(kc, program):
    reply, _ = execute(kc, "%reset -f", store_history=False)
    assert reply["status"] == "ok", reply
    seen, counts = [], []
    for cell in program.cells:
        # The count the cell gets names its loops in the report ("In [n], line k").
        reply, messages = execute(kc, "print(get_ipython().execution_count)", store_history=False)
        counts.append(int(_stdout(messages)))
        reply, messages = execute(kc, cell, timeout=240)
        seen.append([_reply_summary(reply), _message_summary(messages)])
    reply, messages = execute(kc, SNAPSHOT, store_history=False)
    assert reply["status"] == "ok", reply
    return seen, json.loads(_stdout(messages)), counts


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_engine_on_equals_engine_off(kernels, program):
    results = {}
    for mode, (km, kc) in kernels.items():
        seen, final, counts = _run(kc, program)
        results[mode] = (seen, final)
        if mode != "thr0" or program.loop_line is None:
            continue
        name = f"In [{counts[program.loop_cell]}], line {program.loop_line}"
        rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == name]
        assert len(rows) == 1, [(r["name"], r["reason"]) for r in _report(kc)]
        assert rows[0]["graph_runs"] > 0, rows[0]
    off_seen, off_final = results["off"]
    for mode in ("thr0", "default"):
        seen, final = results[mode]
        for index, (want, got) in enumerate(zip(off_seen, seen)):
            assert got == want, f"{mode}: cell {index} differs from the engine off"
        assert final == off_final, f"{mode}: final globals differ from the engine off"

