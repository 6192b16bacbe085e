"""The demo's MLP training loop as a notebook cell writes it, its parameters a
list updated in place: one graph per iteration against chunks.

    PYTHONPATH=build/python SPECULA_COST_CHECK=off /usr/bin/python3 bench/cpu/mlp_cell_loop.py [N]
    PYTHONPATH=build/python SPECULA_ENGINE=off /usr/bin/python3 bench/cpu/mlp_cell_loop.py [N]

The cell of notebooks/demo.ipynb defining `train_step` runs as the kernel runs
it (its source through `specula.cell_loops`' transformer, compiled under a
real file name), then each round runs the cell loop `for epoch in range(N):
losses.append(train_step(params, X, Y, 0.5))` from fresh parameters (N = 400
by default) in two forms, alternating: over `iter(range(N))`, which runs one
graph per iteration, and over `range(N)`, which runs the rest of the loop in
chunks (engine/README.md, "Chunks of a stable loop"). With SPECULA_ENGINE=off
the loop runs in CPython. Prints the median µs per iteration of the rounds
after the first (ROUNDS, default 6), a digest of the final parameters and
losses (equal across runs and modes: bit-identical results) and the loops'
report rows.
"""
import ast
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

import specula
from specula import cell_loops

DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "notebooks",
                    "demo.ipynb")
# `import math` keeps the cell itself out of the engine (cells run again are
# regions too): only the loop is measured.
LOOPS = {
    "off": "import math\nfor epoch in range(N):\n    losses.append(train_step(params, X, Y, 0.5))\n",
    "per_iteration":
    "import math\nfor epoch in iter(range(N)):\n    losses.append(train_step(params, X, Y, 0.5))\n",
    "chunks": "import math\nfor epoch in range(N):\n    losses.append(train_step(params, X, Y, 0.5))\n",
}


def warm_malloc():
    """Frees one large block, as a Jupyter kernel's start-up does, so glibc's
    dynamic mmap threshold rises above the MLP's 200 KB arrays. Without it
    every such array of the CPython run is a fresh mmap with its page faults:
    2.8x slower than the same loop in a kernel (330 against 117 µs)."""
    block = np.ones(1 << 21)
    del block


def main():
    warm_malloc()
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    rounds = int(os.environ.get("ROUNDS", "6"))
    engine_off = os.environ.get("SPECULA_ENGINE") == "off"
    with open(DEMO) as f:
        cells = ["".join(c["source"]) for c in json.load(f)["cells"] if c["cell_type"] == "code"]
    definitions = next(c for c in cells if "def train_step" in c)
    ns = {"__name__": "mlp_cells", "np": np, "N": n}
    specula._engine.install_loop_builtins(cell_loops._flags)
    if not engine_off:
        specula.enable()
    transformer = cell_loops.loop_transformer()
    directory = tempfile.mkdtemp(prefix="specula_mlp_")
    code = {}

    def run_cell(source, name):
        if name not in code:
            path = os.path.join(directory, name + ".py")
            with open(path, "w") as f:
                f.write(source)
            tree = transformer.visit(ast.parse(source, path))
            ast.fix_missing_locations(tree)
            code[name] = compile(tree, path, "exec")
        exec(code[name], ns)

    run_cell(definitions, "definitions")
    modes = ("off",) if engine_off else ("per_iteration", "chunks")
    times = {m: [] for m in modes}
    finals = {}
    for _ in range(rounds):
        for mode in modes:
            ns["params"], ns["losses"] = ns["init_mlp"](), []
            start = time.perf_counter()
            run_cell(LOOPS[mode], "loop_" + mode)
            times[mode].append((time.perf_counter() - start) / n * 1e6)
            finals[mode] = b"".join([a.tobytes() for a in ns["params"]] +
                                    [np.array(ns["losses"]).tobytes()])
    for mode, values in times.items():
        print(f"{mode}: {statistics.median(values[1:]):.1f} µs per iteration "
              f"(rounds: {', '.join(f'{v:.0f}' for v in values)})")
    digests = {hashlib.sha1(f).hexdigest() for f in finals.values()}
    print("final parameters and losses digest:", ", ".join(sorted(digests)))
    for row in specula.report():
        if row["kind"] == "loop":
            print(row["name"], os.path.basename(row["file"]), "graph_runs", row["graph_runs"],
                  "chunks", row["chunks"], "chunk_iterations", row["chunk_iterations"],
                  "chunk_reason", row["chunk_reason"])


if __name__ == "__main__":
    main()
