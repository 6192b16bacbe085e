"""Loops whose iterations append to lists and print, run in chunks
(engine/converter/chunk_effects.cpp): the chunk's commit replays every
iteration's effects in order. The programs run through the kernel with the
engine off, on at threshold 0 and on at the default settings; every reply,
output message and the final globals must be identical, and at threshold 0
the loops meant to chunk must show chunked iterations in specula.report()."""

import pytest

from chunk_effect_programs import PROGRAMS
from kernel_harness import collect, shell_reply
from test_cell_loops import check_interrupted_loop, _report, _stdout, execute, kernels  # noqa: F401 (the fixture)
import test_loop_chunks


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_chunks_with_effects_equal_engine_off(kernels, program):
    # (Called through the module: imported by name, pytest would collect the
    # range programs' test here too.)
    test_loop_chunks.check_equals_engine_off(kernels, program, "chunk_iterations")


def _loop_row(kc, count, line):
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line {line}"]
    assert len(rows) == 1, [(r["name"], r["line"]) for r in _report(kc)]
    return rows[0]


def test_report_shows_chunked_appends_and_why_a_read_list_does_not_chunk(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nw = np.zeros(4)\nlosses = []\nseen = [0.0]")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for i in range(300):\n"
                                  "    w = w + 1.0\n"
                                  "    losses.append(float(w.sum()))\n"
                                  "for j in range(300):\n"
                                  "    w = w + 1.0\n"
                                  "    n = len(seen)\n"
                                  "    seen.append(float(w[0]) + 0.5)\n")
    assert reply["status"] == "ok", reply
    count = int(_stdout(messages))
    appending = _loop_row(kc, count, 2)
    assert appending["chunk_iterations"] > 0 and appending["chunk_reason"] is None, appending
    assert appending["graph_runs"] == 300, appending
    reading = _loop_row(kc, count, 5)
    assert reading["chunks"] == 0, reading
    # When the per-iteration graph is stable enough to try chunks, the
    # refusal names the read list (else the loop never reached chunks).
    if reading["chunk_reason"] is not None:
        assert "both read and appended" in reading["chunk_reason"], reading
    reply, messages = execute(kc, "print(len(losses), losses[-1], len(seen), seen[-1])")
    assert _stdout(messages) == "300 1200.0 301 600.5\n", _stdout(messages)


def test_interrupt_during_a_chunk_with_effects_commits_whole_iterations(kernels):
    # Every chunk committed all of its iterations' appends or none.
    km, kc = kernels["thr0"]
    check_interrupted_loop(km, kc, "import numpy as np\nia = np.zeros(20000)\nsteps = 0.0\nvals = []\n"
                           "counts = []",
                           "for ii in range(10**9):\n"
                           "    ia += 1.0\n"
                           "    steps = steps + 1.0\n"
                           "    vals.append(steps)\n"
                           "    counts.append(ia[:2] * 1.0)\n"
                           "    if ii == 300:\n"
                           "        print('running')",
                           "print(steps > 300, len(vals) == steps == float(ia[0]),\n"
                           "      vals == [float(k + 1) for k in range(len(vals))],\n"
                           "      len(counts) == len(vals), float(counts[-1][0]) == steps,\n"
                           "      ii == steps - 1)", ran="chunks")


def test_interrupt_while_a_chunk_commit_prints_leaves_whole_iterations(kernels):
    # Most of this loop's time is its chunks' commits printing K lines, so
    # interrupts land in the middle of that replay: the lines printed, the
    # list and the names must still be those of one whole number of
    # iterations (before, the lines and appends of the first iterations of
    # the chunk were written and its names never got their values).
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\npa = np.zeros(4)\nsteps = 0.0\nvals = []")
    start = 0
    for attempt in range(6):
        running = f"it {float(start + 3000)}\n"
        msg_id = kc.execute("for pi in range(10**9):\n"
                            "    pa += 1.0\n"
                            "    steps = steps + 1.0\n"
                            "    vals.append(steps)\n"
                            "    print(f'it {steps}')\n")
        text = ""
        while running not in text:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                text += msg["content"]["text"]
        km.interrupt_kernel()
        reply = shell_reply(kc, msg_id, timeout=60)
        text += _stdout(collect(kc, msg_id))
        assert reply["content"]["status"] == "error", reply["content"]
        assert reply["content"]["ename"] == "KeyboardInterrupt", reply["content"]
        reply, messages = execute(kc, "print(steps, len(vals), float(pa[0]), "
                                      "vals == [float(k + 1) for k in range(len(vals))])")
        steps, count, pa0, consecutive = _stdout(messages).split()
        assert float(steps) == float(count) == float(pa0) and consecutive == "True", _stdout(messages)
        want = "".join(f"it {float(k + 1)}\n" for k in range(start, int(float(steps))))
        assert text == want, (len(text), len(want), text[-200:], want[-200:])
        start = int(float(steps))
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r.get("chunks", 0) > 0]
    assert rows, "the interrupted loop never ran in chunks"
