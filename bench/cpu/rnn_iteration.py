"""The demo's character-RNN training iteration, engine on against engine off in
one process: where a graph of many small ops stands against CPython.

    PYTHONPATH=build/python SPECULA_COST_CHECK=off /usr/bin/python3 bench/cpu/rnn_iteration.py
        [--hidden 64] [--rounds 15] [--iterations 20] [--profile-seconds 0]

The RNN cell of notebooks/demo.ipynb (the one defining `rnn_iteration`) is run
as the kernel runs it, with the notebook's timed training loop wrapped in a
`train_rnn` function: its loops marked by `specula.cell_loops` (the training
loop inside `train_rnn` is an on-stack-replacement region), compiled under a
real file name so the engine reads its source. `--hidden` changes H (W1 uses
100). Each round times `train_rnn(rnn, --iterations)` with the engine off and
on (the order alternates), from the same starting parameters; the figures
are medians per iteration over the rounds, and the final parameters and
losses must be bit-identical. `--profile-seconds S` then keeps the engine on
and calls `train_rnn` for S seconds more, so `perf record -p` can attach.
SPECULA_COST_CHECK=off keeps the graph even when the cost check would send it
back to CPython, so the graph itself is measured.
"""
import argparse
import ast
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import specula
from specula import cell_loops

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "notebooks", "demo.ipynb")


def rnn_cell_source(hidden):
    with open(DEMO) as f:
        cells = json.load(f)["cells"]
    source = next("".join(c["source"]) for c in cells
                  if c["cell_type"] == "code" and "def rnn_iteration" in "".join(c["source"]))
    source = source.replace("V, H, T = len(chars), 64, 25", f"V, H, T = len(chars), {hidden}, 25")
    # The notebook's timed cell loop, as a function so each round starts it afresh.
    return source + TRAIN_RNN


TRAIN_RNN = """

def train_rnn(rnn, iterations):
    mem = [np.zeros_like(w) for w in rnn]
    h, pos, losses = np.zeros((H, 1)), 0, []
    for it in range(iterations):
        h, pos, loss = rnn_iteration(rnn, mem, h, pos)
        losses.append(loss)
    return losses
"""


def load_cell(source, directory):
    """The cell's namespace, its loops marked as the kernel marks them."""
    path = os.path.join(directory, "demo_rnn_cell.py")
    with open(path, "w") as f:
        f.write(source)
    tree = cell_loops.loop_transformer().visit(ast.parse(source, path))
    ast.fix_missing_locations(tree)
    namespace = {"__name__": "demo_rnn_cell", "__file__": path, "np": np}
    specula._engine.install_loop_builtins(cell_loops._flags)
    exec(compile(tree, path, "exec"), namespace)
    return namespace


def timed(ns, rnn, iterations):
    """Seconds of this thread's CPU (a shared machine's other load does not
    count) and of wall clock, and the losses."""
    start, wall = time.thread_time(), time.perf_counter()
    losses = ns["train_rnn"](rnn, iterations)
    return time.thread_time() - start, time.perf_counter() - wall, losses


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--profile-seconds", type=float, default=0.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        ns = load_cell(rnn_cell_source(args.hidden), directory)
        rnn_off, rnn_on = ns["init_rnn"](), ns["init_rnn"]()
        off_times, on_times, off_wall, on_wall = [], [], [], []
        same = True
        for r in range(args.warmup + args.rounds):
            results = {}
            for engine_on in ((False, True) if r % 2 == 0 else (True, False)):
                if engine_on:
                    specula.enable()
                    results[True] = timed(ns, rnn_on, args.iterations)
                else:
                    specula.disable()
                    results[False] = timed(ns, rnn_off, args.iterations)
            specula.disable()
            same = same and results[False][2] == results[True][2]
            if r >= args.warmup:
                off_times.append(results[False][0] / args.iterations)
                on_times.append(results[True][0] / args.iterations)
                off_wall.append(results[False][1] / args.iterations)
                on_wall.append(results[True][1] / args.iterations)
        same = same and all(a.tobytes() == b.tobytes() for a, b in zip(rnn_off, rnn_on))
        rows = [row for row in specula.report() if row["name"].startswith("train_rnn")]
        if args.profile_seconds > 0:
            specula.enable()
            print(f"pid {os.getpid()}: engine on for {args.profile_seconds} s", flush=True)
            end = time.perf_counter() + args.profile_seconds
            while time.perf_counter() < end:
                ns["train_rnn"](rnn_on, args.iterations)
            specula.disable()
    off, on = statistics.median(off_times), statistics.median(on_times)
    wall_off, wall_on = statistics.median(off_wall), statistics.median(on_wall)
    print(f"demo RNN training iteration, H={args.hidden}, T=25, float64; "
          f"{args.rounds} rounds of {args.iterations} iterations, load {os.getloadavg()[0]:.1f}")
    print(f"  thread CPU: engine off {off * 1e3:.3f} ms, engine on {on * 1e3:.3f} ms per iteration "
          f"(off/on {off / on:.2f}x)")
    print(f"  wall: engine off {wall_off * 1e3:.3f} ms, engine on {wall_on * 1e3:.3f} ms per iteration "
          f"(off/on {wall_off / wall_on:.2f}x); bit-identical: {same}")
    for row in rows:
        specs = ", ".join(f"{s['verdict']} graph median "
                          f"{(s['graph_median_s'] or 0) * 1e3:.3f} ms" for s in row["specialisations"])
        print(f"  {row['name']}: {row['state']}, {row['graph_runs']} graph runs "
              f"({row['time_graph_s'] / max(row['graph_runs'], 1) * 1e3:.3f} ms each), "
              f"{row['fallbacks']} fallbacks{'; ' + specs if specs else ''}"
              f"{'; ' + row['reason'] if row['reason'] else ''}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
