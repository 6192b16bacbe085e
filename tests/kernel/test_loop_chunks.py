"""The rest of a stable loop in chunks (engine/loop_chunks.hpp): cell loops
and loops inside functions whose iterations keep running as graphs run
several iterations per graph. The programs run through the kernel with the
engine off, on at threshold 0 and on at the default threshold; every reply,
output message and the final globals must be identical, and at threshold 0
the loops meant to chunk must show chunks in specula.report()."""

import pytest

from chunk_programs import PROGRAMS as RANGE_PROGRAMS
from item_chunk_programs import PROGRAMS as ITEM_PROGRAMS, SAME_GUARD_MISS
from test_cell_loops import (check_interrupted_loop, _report, _run_program, _stdout, execute,
                             kernels)  # noqa: F401 (the fixture)


def _chunk_counts(report, key):
    return {(r["file"], r["line"], r["name"]): r.get(key, 0) for r in report if r["kind"] == "loop"}


def _new(before, after):
    return sum(n - before.get(k, 0) for k, n in after.items())


def run_counted(kc, setup, loops):
    """A fresh namespace, `setup`, then the cell `loops` behind a print of its
    execution count (its loop rows are named "In [n], line k"); returns n."""
    execute(kc, "%reset -f", store_history=False)
    execute(kc, setup)
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n" + loops)
    assert reply["status"] == "ok", reply
    return int(_stdout(messages).splitlines()[0])


def check_equals_engine_off(kernels, program, key="chunks"):
    """Runs `program` in every kernel: at threshold 0 the loops meant to chunk
    must add to the loop rows' `key` and the others not; every cell's outputs
    and the final globals must equal the engine off's."""
    results = {}
    for mode, (km, kc) in kernels.items():
        before = _report(kc)
        results[mode] = _run_program(kc, program)
        after = _report(kc)
        if mode == "thr0":
            chunked = _new(_chunk_counts(before, key), _chunk_counts(after, key))
            if program.chunks:
                assert chunked > 0, f"no loop ran in chunks: {after}"
            else:
                assert chunked == 0, f"a loop ran in chunks: {after}"
    off_seen, off_final = results["off"]
    for mode in ("thr0", "default"):
        seen, final = results[mode]
        for index, (want, got) in enumerate(zip(off_seen, seen)):
            assert got == want, f"{mode}: cell {index} differs from the engine off"
        assert final == off_final, f"{mode}: final globals differ from the engine off"


PROGRAMS = RANGE_PROGRAMS + ITEM_PROGRAMS


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_chunked_loops_equal_engine_off(kernels, program):
    check_equals_engine_off(kernels, program)


def test_a_name_no_longer_on_its_item_misses_the_same_guard(kernels):
    """A chunk's body binds `w` to a list item; an iteration of the other
    side of a counter `if` leaves `w` on another array, so the chunk graph
    entered next misses its `same` guard (counted in the loop row) and the
    iterations run as CPython runs them: results equal the engine off's."""
    check_equals_engine_off(kernels, SAME_GUARD_MISS, key="chunk_guard_misses")


def _row(kc, count, line):
    rows = [r for r in _report(kc) if r["kind"] == "loop" and r["name"] == f"In [{count}], line {line}"]
    assert len(rows) == 1, [(r["name"], r["line"]) for r in _report(kc)]
    return rows[0]


def test_report_and_explain_show_chunks(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nimport specula\ncz = np.zeros(8)")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for ci in range(200):\n"
                                  "    cz = cz * 0.5 + 1.0")
    assert reply["status"] == "ok", reply
    count = int(_stdout(messages))
    row = _row(kc, count, 2)
    # The first iterations run one by one (profiling, then 8 graph
    # iterations in a row); the rest in chunks, counted as graph runs.
    assert row["graph_runs"] == 200, row
    assert row["chunks"] > 0 and 0 < row["chunk_iterations"] < 200, row
    assert row["chunk_failures"] == 0 and row["chunk_reason"] is None, row
    assert row["time_graph_s"] >= row["chunk_time_s"] > 0.0, row
    reply, messages = execute(kc, f"print(specula.explain('In [{count}], line 2'))")
    assert reply["status"] == "ok", reply
    text = _stdout(messages)
    assert f"chunks: {row['chunks']} chunk(s) ran {row['chunk_iterations']} iteration(s)" in text, text


def test_report_says_why_a_loop_does_not_chunk(kernels):
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\ndz = np.zeros(2)\nitems = list(range(40))\nclass Box:\n    pass\nbox = Box()\nbox.v = 0.0")
    reply, messages = execute(kc, "print(get_ipython().execution_count)\n"
                                  "for di in iter(items):\n"
                                  "    dz = dz + 1.0\n"
                                  "for dj in range(40):\n"
                                  "    dz = dz + 1.0\n"
                                  "    box.v = dz[0] * 2.0")
    assert reply["status"] == "ok", reply
    count = int(_stdout(messages).splitlines()[0])
    over_list = _row(kc, count, 2)
    assert over_list["chunks"] == 0 and "not a range, list, tuple" in over_list["chunk_reason"], over_list
    # Appends and prints are replayed per iteration (test_chunk_effects.py);
    # an attribute write is not.
    writing = _row(kc, count, 4)
    assert writing["chunks"] == 0 and "effects" in writing["chunk_reason"], writing


@pytest.mark.parametrize("iterable, made", [("range(10**9)", ""),
                                             ("big", "\nbig = list(range(3 * 10**6))")],
                         ids=["range", "list"])
def test_interrupt_during_a_chunk_commits_whole_iterations(kernels, iterable, made):
    # Every chunk committed all of its iterations or none; the loop variable
    # is that of the last iteration run, as CPython leaves it (its body takes
    # signals at the backward jump only): an interrupted chunk's first
    # iteration runs in CPython before the interrupt is raised.
    km, kc = kernels["thr0"]
    check_interrupted_loop(km, kc, "import numpy as np\nia = np.zeros(20000)\nib = np.zeros(20000)\n"
                           "steps = 0.0" + made,
                           f"for ii in {iterable}:\n"
                           "    ia += 1.0\n"
                           "    ib = ib + ia * 0.0 + 1.0\n"
                           "    steps = steps + 1.0\n"
                           "    if ii == 300:\n"
                           "        print('running')",
                           "print(ii, steps, ia[0], ib[0])\n"
                           "print(steps > 300, float(ia[0]) == steps, bool((ia == ib).all()),\n"
                           "      ii == steps - 1)", ran="chunks")


def test_chunks_slower_than_one_graph_per_iteration_stop(kernels):
    """With the cost check on, chunks are judged against the one-iteration
    graph: injected as nearly free, every chunk is slower, and after a few
    the loop stops chunking and says why (results stay CPython's)."""
    km, kc = kernels["default"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nimport specula\ncz = np.zeros(8)")
    loop = "print(get_ipython().execution_count)\nfor ci in range(3000):\n    cz = cz * 0.5 + 1.0"
    reply, messages = execute(kc, loop)
    assert reply["status"] == "ok", reply
    first = _row(kc, int(_stdout(messages)), 2)
    assert first["chunks"] > 0, first
    name = first["name"]
    reply, messages = execute(kc, f"print(specula._engine._inject_cost({name!r}, '', 1e-9, 1.0))")
    assert _stdout(messages) == "1\n", messages
    for _ in range(2):
        reply, _ = execute(kc, loop)
        assert reply["status"] == "ok", reply
    row = [r for r in _report(kc) if r["name"] == name][0]
    assert row["chunk_reason"].startswith("chunks slower than one graph per iteration"), row
    reply, messages = execute(kc, "print(cz.tolist())")
    assert _stdout(messages) == f"{[2.0] * 8}\n"


def test_an_internal_error_after_a_commit_is_raised_not_run_again(kernels):
    """An internal error thrown after a graph's commit (injected: as a
    std::bad_alloc binding a chunk's target would be) must not send the
    iteration to CPython, which would make its effects twice: the cell raises
    SystemError, and every iteration that ran was committed once, in order.
    First at a one-iteration graph's commit (the loop's first), then, in
    another loop that already ran in chunks, at a chunk's (the second commit
    of its next run: one iteration, then chunks). An internal error sends a
    loop back to CPython for good."""
    km, kc = kernels["thr0"]
    execute(kc, "%reset -f", store_history=False)
    execute(kc, "import numpy as np\nimport specula\nek = np.zeros(3)\nelog = []")
    whole = "print(len(elog), elog == list(range(len(elog))), float(ek[0]) == len(elog))"
    try:
        for name, in_chunk in (("ei", False), ("ej", True)):
            # (The import keeps the cell, run again, from being one graph.)
            loop = f"import math\nfor {name} in range(300):\n    ek += 1.0\n    elog.append({name})"
            if in_chunk:
                reply, _ = execute(kc, loop)
                assert reply["status"] == "ok", reply
                execute(kc, "ek[:] = 0.0\nelog.clear()")
            execute(kc, f"specula._engine._fail_after_commit({2 if in_chunk else 1})")
            reply, _ = execute(kc, loop)
            assert reply["status"] == "error" and reply["ename"] == "SystemError", reply
            assert "after a commit" in reply["evalue"], reply
            reply, messages = execute(kc, whole)
            ran, in_order, once = _stdout(messages).split()
            assert in_order == "True" and once == "True", _stdout(messages)
            # A chunk's iterations after the run's first one, or at least one.
            assert int(ran) > (2 if in_chunk else 0), ran
            execute(kc, "ek[:] = 0.0\nelog.clear()")
    finally:
        execute(kc, "specula._engine._fail_after_commit(0)")  # disarmed
