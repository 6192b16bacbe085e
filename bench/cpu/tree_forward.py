"""W4's tree forward (TreeRNN over parse trees), engine on against engine off
in one process: what a recursion over trees costs per tree and per node.

    PYTHONPATH=build/python SPECULA_COST_CHECK=off /usr/bin/python3 bench/cpu/tree_forward.py
        [--rounds 15] [--warmup 3] [--trees 100] [--caller] [--profile-seconds 0]

The setup cell of bench/workloads/w4_tree_rnn.py (the `Node` class, the random
trees, the parameters and `forward`) is compiled under a real file name so
the engine reads its source. Each round runs `forward(root, params)` over
every tree with the engine off and on (the order alternates) and times it in
this thread's CPU (a shared machine's other load does not count) and in wall
clock; figures are medians per tree over the rounds. Every node's `h` (and
`children`) must be bit-identical between the two runs of a round.
`--caller` times `tree_loss` without `backward` (the forward plus the loss at
the root, a caller of the recursion) instead. `--profile-seconds S` then
keeps the engine on for S seconds more, so `perf record -g -p` can attach.
SPECULA_COST_CHECK=off keeps the graph even when the cost check would send it
back to CPython, so the graph itself is measured.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import specula

HERE = os.path.dirname(os.path.abspath(__file__))
W4 = os.path.join(HERE, "..", "workloads", "w4_tree_rnn.py")

CALLER = '''

def forward_loss(root, label, p):
    forward(root, p)
    logits = p["U"] @ root.h + p["bu"]
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    return -np.log(probs[label])
'''


def setup_source():
    """The workload's setup cell, with the timed cell's functions."""
    with open(W4) as f:
        text = f.read()
    cells = text.split("# %% ")
    setup = next(c for c in cells if c.startswith("setup"))
    return setup.split("\n", 1)[1] + CALLER


def load(source, directory, trees):
    path = os.path.join(directory, "w4_tree_forward.py")
    with open(path, "w") as f:
        f.write(source.replace("num_trees = 10 if QUICK else 100", f"num_trees = {trees}"))
    namespace = {"__name__": "w4_tree_forward", "__file__": path}
    exec(compile(open(path).read(), path, "exec"), namespace)
    return namespace


def node_bytes(node):
    """Every node's arrays in post-order, as bytes."""
    out = []
    if node.left is not None:
        out += node_bytes(node.left) + node_bytes(node.right)
    out.append(node.h.tobytes())
    if hasattr(node, "children"):
        out.append(node.children.tobytes())
    return out


def epoch(ns, caller, keep=True):
    trees, labels, params = ns["trees"], ns["labels"], ns["params"]
    start, wall = time.thread_time(), time.perf_counter()
    if caller:
        losses = [ns["forward_loss"](t, y, params) for t, y in zip(trees, labels)]
    else:
        for t in trees:
            ns["forward"](t, params)
        losses = []
    cpu, wall = time.thread_time() - start, time.perf_counter() - wall
    if not keep:
        return cpu, wall, None
    state = [b for t in trees for b in node_bytes(t)] + [np.float64(x).tobytes() for x in losses]
    return cpu, wall, state


def count_nodes(node):
    return 1 if node.left is None else 1 + count_nodes(node.left) + count_nodes(node.right)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--caller", action="store_true")
    ap.add_argument("--profile-seconds", type=float, default=0.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        ns = load(setup_source(), directory, args.trees)
        nodes = sum(count_nodes(t) for t in ns["trees"])
        times = {False: [], True: []}
        walls = {False: [], True: []}
        same = True
        for r in range(args.warmup + args.rounds):
            results = {}
            for engine_on in ((False, True) if r % 2 == 0 else (True, False)):
                (specula.enable if engine_on else specula.disable)()
                results[engine_on] = epoch(ns, args.caller)
            specula.disable()
            same = same and results[False][2] == results[True][2]
            if r >= args.warmup:
                for on in (False, True):
                    times[on].append(results[on][0] / args.trees)
                    walls[on].append(results[on][1] / args.trees)
        name = "forward_loss" if args.caller else "forward"
        rows = [row for row in specula.report() if row["name"] in ("forward", "forward_loss")]
        if args.profile_seconds > 0:
            specula.enable()
            print(f"pid {os.getpid()}: engine on for {args.profile_seconds} s", flush=True)
            end = time.perf_counter() + args.profile_seconds
            while time.perf_counter() < end:
                epoch(ns, args.caller, keep=False)
            specula.disable()
    off, on = statistics.median(times[False]), statistics.median(times[True])
    woff, won = statistics.median(walls[False]), statistics.median(walls[True])
    per_tree = nodes / args.trees
    print(f"W4 {name}: {args.trees} trees, {per_tree:.1f} nodes per tree, embedding 64, float64; "
          f"{args.rounds} rounds, load {os.getloadavg()[0]:.1f}")
    print(f"  thread CPU per tree: engine off {off * 1e6:.1f} us, engine on {on * 1e6:.1f} us "
          f"(off/on {off / on:.2f}x); per node {off / per_tree * 1e9:.0f} ns vs "
          f"{on / per_tree * 1e9:.0f} ns")
    print(f"  wall per tree: engine off {woff * 1e6:.1f} us, engine on {won * 1e6:.1f} us "
          f"(off/on {woff / won:.2f}x); bit-identical: {same}")
    for row in rows:
        print(f"  {row['name']}: {row['state']}, {row['graph_runs']} graph runs, "
              f"{row['fallbacks']} fallbacks{'; ' + row['reason'] if row['reason'] else ''}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
