"""Cell programs for the chunked-loop differential tests (test_loop_chunks.py).

Each program is a list of cells run in order in one kernel, with the engine
off, on at threshold 0 (no cost check) and on at the default settings; every
output and the final globals are compared bit for bit. `chunks` says whether,
at threshold 0, some loop must run chunks (several iterations in one graph,
the report's `chunks`); the results themselves are always the engine-off
ones.
"""

from dataclasses import dataclass

SETUP = "import numpy as np\n"


@dataclass
class chunk_program:
    name: str
    cells: list
    chunks: bool = True


PROGRAMS = [
    chunk_program("long_stable_loop", [
        SETUP + "a = np.zeros(500)\nb = np.ones(500)\ns = 0.0\nc = None",
        "for i in range(300):\n"
        "    a += b * 0.5\n"
        "    c = a * 2.0\n"
        "    s = s + 1.5\n"
        "    b[3] = i\n"
        "print(i, s, a[:4], c[:4], b[:5])",
        # Run again: same region, chunks from the start of the steady state.
        "for i in range(5, 205):\n"
        "    a += b * 0.5\n"
        "    c = a * 2.0\n"
        "    s = s + 1.5\n"
        "    b[3] = i\n"
        "i, s, a.sum()",
    ]),
    chunk_program("assert_fails_inside_a_chunk", [
        SETUP + "a = np.zeros(50)\nb = np.ones(50)",
        # Iteration 119 fails the assert: 0..118 committed, 119 raised by CPython.
        "for i in range(400):\n"
        "    a += b * 0.5\n"
        "    assert a[0] < 60.0, 'too big'\n",
        "print(i, a[0], a.sum())",
    ]),
    chunk_program("type_changes_at_iteration_k", [
        SETUP + "y = np.zeros(3)",
        "for j in range(100):\n"
        "    y = y + 1.0\n"
        "    if j == 60:\n"
        "        y = y.astype(np.float32)\n"
        "print(j, y, y.dtype)",
    ]),
    chunk_program("guard_miss_between_runs_of_an_inner_loop", [
        SETUP + "x = np.ones(4)\nw = np.zeros(4)",
        # The outer loop stays in CPython (import); the inner one runs in
        # chunks, and its chunk graph misses when x becomes float32.
        "for e in range(3):\n"
        "    import math\n"
        "    if e == 1:\n"
        "        x = x.astype(np.float32)\n"
        "    for t in range(40):\n"
        "        w = w + x * 0.5\n"
        "    print(e, t, w, w.dtype)",
    ]),
    chunk_program("break_else_and_loop_variable", [
        SETUP + "z = np.zeros(3)",
        "for k in range(200):\n"
        "    z = z + 1.0\n"
        "    if k % 50 == 0:\n"
        "        print(k, z)\n"
        "    if k == 150:\n"
        "        break\n"
        "else:\n"
        "    print('no break')\n"
        "print(k, z)",
        "for k in range(60):\n"
        "    z = z * 1.01\n"
        "else:\n"
        "    print('else ran', k)\n"
        "print(k, z)",
        "for k2 in range(3, 200, 7):\n"
        "    z = z - 0.5\n"
        "print(k2, z)",
        "for k3 in range(100, 0, -3):\n"
        "    z = z + 0.25\n"
        "    if k3 < 20:\n"
        "        break\n"
        "print(k3, z)",
    ]),
    chunk_program("osr_loop_in_a_function", [
        SETUP,
        # try/finally keeps the function itself in CPython (even at
        # threshold 0): its loop is entered in the running frame.
        "def grow(n):\n"
        "    w = np.ones(5)\n"
        "    t = 0.0\n"
        "    v = np.zeros(5)\n"
        "    try:\n"
        "        for q in range(n):\n"
        "            w = w * 1.001 + 0.5\n"
        "            t = t + 0.25\n"
        "            v[1] = t\n"
        "            if q % 100 == 0:\n"
        "                print(q, w[0])\n"
        "    finally:\n"
        "        pass\n"
        "    return w, t, q, v\n"
        "print(grow(300))",
        "def count(n):\n"
        "    acc = np.zeros(3)\n"
        "    try:\n"
        "        for q in range(2, n, 3):\n"
        "            acc += 1.0\n"
        "            if q > 170:\n"
        "                break\n"
        "        else:\n"
        "            print('else')\n"
        "    finally:\n"
        "        pass\n"
        "    return acc, q\n"
        "print(count(300))\n"
        "print(count(100))",
        # A global rebound and a global array written from the function's loop.
        "G = np.zeros(4)\n"
        "H = np.ones(4)\n"
        "def globals_too(n):\n"
        "    global G\n"
        "    acc = 0.0\n"
        "    try:\n"
        "        for q in range(n):\n"
        "            G = G + 1.0\n"
        "            H[2] = q\n"
        "            acc = acc + 0.5\n"
        "    finally:\n"
        "        pass\n"
        "    return acc\n"
        "print(globals_too(100), G, H)",
    ]),
    chunk_program("no_chunks_for_prints_and_lists", [
        SETUP + "m = np.zeros(2)\nseen = []",
        # Effects every iteration: per-iteration graphs only.
        "for u in range(30):\n"
        "    m = m + 1.0\n"
        "    print(u, end=' ')\n"
        "for u in [1, 2, 3] * 10:\n"
        "    m = m * 0.5 + u\n"
        "print(m)",
    ], chunks=False),
]
