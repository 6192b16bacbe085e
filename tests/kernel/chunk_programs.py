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


# One epoch of minibatch SGD over X (a cell run again and again).
MINIBATCH_EPOCH = (
    "loss = 0.0\n"
    "for start in range(0, len(X), bs):\n"
    "    xb, yb = X[start:start + bs], Y[start:start + bs]\n"
    "    err = np.tanh(xb @ W + b) - yb\n"
    "    loss += (err * err).sum()\n"
    "    g = err / len(xb)\n"
    "    W -= 0.05 * xb.T @ g\n"
    "    b -= 0.05 * g.sum(axis=0)\n"
    "losses.append(loss)\n"
    "print(start, loss, xb.shape, xb.base is X, yb.base is Y, np.shares_memory(xb, X))")

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
    chunk_program("no_chunks_for_attribute_writes_and_iterators", [
        SETUP + "m = np.zeros(2)\nseen = []\nclass Box:\n    pass\nbox = Box()\nbox.v = 0.0",
        # An attribute write every iteration: per-iteration graphs only
        # (appends and prints are replayed by chunks: chunk_effect_programs.py).
        "for u in range(30):\n"
        "    m = m + 1.0\n"
        "    box.v = m[0] * 2.0\n"
        "for u in iter([1, 2, 3] * 10):\n"
        "    m = m * 0.5 + u\n"
        "print(m, box.v)\ndel box",
    ], chunks=False),
    chunk_program("swapped_buffers_of_a_stencil", [
        # W5's two buffers, the update written in the cell: the names trade
        # arrays every iteration; chunks run an even number of iterations.
        SETUP + "alpha = 0.2\nu = np.zeros((32, 32))\nu[0, :] = 1.0\nu[8:16, 8:16] = 0.5\n"
        "u_new = u.copy()\nA, B = u, u_new",
        "for s in range(101):\n"
        "    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (\n"
        "        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])\n"
        "    u, u_new = u_new, u\n"
        "print(s, u is A, u is B, u_new is A, u_new is B, u.sum(), u_new.sum())",
        # Run again from the other parity, with a counter if on the way.
        "for s in range(3, 80):\n"
        "    u_new[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * (\n"
        "        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])\n"
        "    u, u_new = u_new, u\n"
        "    if s == 41:\n"
        "        print('at', s, u.sum())\n"
        "print(s, u is A, u_new is A, u.tobytes() == A.tobytes(), B.sum())",
        # Three names in a cycle, one array updated in place each iteration.
        "p = np.zeros(4)\nq = np.ones(4)\nr = np.full(4, 2.0)\nP, Q, R = p, q, r\n"
        "for t in range(50):\n"
        "    p += t * 0.5\n"
        "    p, q, r = q, r, p\n"
        "print(t, p, q, r, p is P, q is P, r is P)",
    ]),
    chunk_program("carried_arrays_updated_in_place", [
        # The LOOP writes its own copies of the carried grids in place
        # (backends/loop_carried.cpp): a stencil whose buffers swap, the
        # updated grid read again in the same iteration, `a[...] =` and
        # `a +=` on a carried array; the user's arrays change only at commit.
        SETUP + "u = np.zeros((24, 20))\nu[0, :] = 1.0\nu[6:12, 5:9] = 0.5\nv = u.copy()\n"
        "U, V = u, v\nprobe = 0.0\nc = np.linspace(0.0, 1.0, 16)\nd = np.zeros(16)",
        "for s in range(90):\n"
        "    v[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (\n"
        "        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])\n"
        "    probe = probe + v[3, 4] * 0.5 + v.sum()\n"
        "    u, v = v, u\n"
        "print(s, probe, u is U, v is U, U.sum(), V.sum())",
        "for s in range(70):\n"
        "    d[...] = c * 0.5 + d * 0.25\n"
        "    c += d\n"
        "    c[2:5] = d[:3] - 1.0\n"
        "print(s, c.tolist(), d.tolist())",
    ]),
    chunk_program("carried_update_through_an_aliasing_view", [
        # The values are a view of the array written (NumPy copies them
        # first): the update keeps its copy; the view name is rebound to a
        # new view every iteration.
        SETUP + "g = np.linspace(0.0, 1.0, 30)\nw = g[1:4]",
        "for s in range(60):\n"
        "    g[1:] = g[:-1]\n"
        "    g[0] = s * 0.5\n"
        "print(s, g.tolist())",
        "for s in range(40):\n"
        "    w = g[2:6]\n"
        "    g[1:-1] = 0.5 * (g[:-2] + g[2:])\n"
        "print(s, w.tolist(), w.base is g, g.sum())",
    ]),
    chunk_program("assert_fails_inside_a_chunk_of_swapped_grids", [
        # The stencil's centre passes the bound at some iteration inside a
        # chunk: nothing of that chunk is written, earlier iterations are
        # committed, CPython raises the AssertionError at exactly that one.
        SETUP + "u = np.zeros((16, 16))\nu[0, :] = 4.0\nv = u.copy()\nU = u",
        "for s in range(400):\n"
        "    v[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (\n"
        "        u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])\n"
        "    assert v[4, 8] < 0.75, s\n"
        "    u, v = v, u\n",
        "print(s, u is U, u.sum(), v.sum(), u[4, 8], v[4, 8])",
    ]),
    chunk_program("swapped_buffers_in_a_function", [
        SETUP,
        "def heat(n):\n"
        "    u = np.linspace(0.0, 1.0, 64) ** 2\n"
        "    v = u.copy()\n"
        "    first = u\n"
        "    try:\n"
        "        for k in range(n):\n"
        "            v[1:-1] = 0.5 * (u[:-2] + u[2:])\n"
        "            u, v = v, u\n"
        "    finally:\n"
        "        pass\n"
        "    return u.sum(), v.sum(), u is first, k\n"
        "print(heat(77))\n"
        "print(heat(120))",
    ]),
    chunk_program("swapped_names_on_one_array", [
        # Both names on one array: NumPy reads what it writes; never a chunk
        # (the in-place writes are guarded against overlapping reads).
        SETUP + "g = np.linspace(0.0, 1.0, 40)\ng2 = g",
        "for s in range(60):\n"
        "    g2[1:-1] = 0.5 * (g[:-2] + g[2:])\n"
        "    g, g2 = g2, g\n"
        "print(s, g is g2, g.sum())",
    ], chunks=False),
    chunk_program("python_int_accumulators", [
        SETUP + "count = 0\ntotal = 0\nflag = False\nacc = np.zeros(3)",
        "for i in range(300):\n"
        "    acc = acc + 1.0\n"
        "    count += 1\n"
        "    total += i * 3 - 7\n"
        "    flag = i > 100\n"
        "print(i, count, total, flag, acc, type(count), type(total))",
        # An accumulator crossing 2**31 inside a chunk: that chunk fails, its
        # iterations replay one by one and CPython goes on past the range.
        "big = 2**31 - 500\nw = np.zeros(2)\n"
        "for i in range(2000):\n"
        "    w = w + 0.5\n"
        "    big += 1\n"
        "print(i, big, w)",
        # Near 2**63 and beyond: Python ints never wrap.
        "huge = 2**63 - 100\nh = np.zeros(2)\n"
        "for i in range(400):\n"
        "    h = h + 0.5\n"
        "    huge += 1\n"
        "print(i, huge, h, type(huge))",
        "grow = 1\nz = np.zeros(2)\n"
        "for i in range(80):\n"
        "    z = z + 1.0\n"
        "    grow = grow * 3 + i\n"
        "print(i, grow, z)",
        "neg = -(2**31) + 300\n"
        "for i in range(1000):\n"
        "    z = z - 1.0\n"
        "    neg -= 1\n"
        "print(i, neg, z)",
    ]),
    chunk_program("python_int_accumulator_in_a_function", [
        SETUP,
        "def tally(n, start):\n"
        "    c = start\n"
        "    s = 0.0\n"
        "    v = np.zeros(3)\n"
        "    try:\n"
        "        for q in range(n):\n"
        "            v = v + 1.0\n"
        "            c += 2\n"
        "            s = s + 0.5\n"
        "    finally:\n"
        "        pass\n"
        "    return c, s, v, q\n"
        "print(tally(300, 0))\n"
        "print(tally(900, 2**31 - 1000))\n"
        "print(tally(200, 2**63 - 10))",
    ]),
    chunk_program("minibatch_slices_from_the_counter", [
        # W7's epoch: minibatches sliced by the target, a short last batch
        # (100 = 12 * 8 + 4), weights updated in place, a float accumulator.
        SETUP + "rng = np.random.default_rng(3)\nX = rng.standard_normal((100, 5))\n"
        "Y = rng.standard_normal((100, 2))\nW = rng.standard_normal((5, 2)) * 0.1\n"
        "b = np.zeros(2)\nbs = 8\nlosses = []",
        MINIBATCH_EPOCH,
        # The same cell run again: the epochs after the first.
        MINIBATCH_EPOCH,
        MINIBATCH_EPOCH,
        # Batches numbered by the counter, an open upper bound past the end
        # of X (NumPy clips: the last batch is short), a view kept after the
        # loop and a slice from a bound computed with // and %.
        "acc = np.zeros(5)\n"
        "for k in range(14):\n"
        "    part = X[k * bs:(k + 1) * bs]\n"
        "    acc += part.sum(axis=0)\n"
        "    tail = X[(k % 3) * 2 + k // 2:]\n"
        "    acc = acc + tail[:3].sum(axis=0)\n"
        "print(k, acc, part.shape, part.base is X, tail.shape, tail.base is X)",
    ]),
    chunk_program("minibatch_loop_with_break_and_failing_assert", [
        SETUP + "rng = np.random.default_rng(4)\nX = rng.standard_normal((300, 4))\n"
        "w = np.zeros(4)\nbs = 10",
        # A break on the counter: the chunk ends before it.
        "for i in range(0, 300, bs):\n"
        "    xb = X[i:i + bs]\n"
        "    w += xb.sum(axis=0) * 0.01\n"
        "    if i == 170:\n"
        "        break\n"
        "print(i, w, xb.shape, xb.base is X, xb[0])",
        # An assert on the data fails in the middle of the loop: every earlier
        # iteration committed, CPython raises at exactly that one.
        "X[213, 0] = 100.0\n"
        "for i in range(0, 300, bs):\n"
        "    xb = X[i:i + bs]\n"
        "    w += xb.sum(axis=0) * 0.01\n"
        "    assert xb.max() < 50.0, i\n",
        "print(i, w, xb.shape, xb.base is X, xb[3])",
    ]),
    chunk_program("if_on_a_carried_int_resets_it", [
        # The demo RNN's wrap-around: a carried int reset to 0 by an `if` on
        # it (in a chunk graph an IR IF: the literal on one side, the int on
        # the other), every 8 iterations, so resets happen inside chunks; an
        # array, a float and a bool reset with it.
        SETUP + "acc = np.zeros(3)\npos, scale, wrapped = 0, 1.0, False\nT = 6",
        "for it in range(300):\n"
        "    if pos + T + 1 >= 50:\n"
        "        acc, pos, scale, wrapped = np.zeros(3), 0, 1.0, True\n"
        "    acc = acc * 0.5 + pos * 0.25 + np.arange(3.0) * scale\n"
        "    scale = scale * 0.9\n"
        "    pos = pos + 7\n"
        "print(it, pos, type(pos).__name__, scale, wrapped, acc)",
        # The demo's form: the `if` inside a function the cell loop calls,
        # with an int changed by two expressions on the two sides of an `if`
        # on array data.
        "def step(h, pos, k):\n"
        "    if pos + T + 1 >= 40:\n"
        "        h, pos = np.zeros(3), 0\n"
        "    h = np.tanh(h + pos * 0.1)\n"
        "    if h[0] > 0.5:\n"
        "        k = k - 3\n"
        "    else:\n"
        "        k = k + 2\n"
        "    return h, pos + T, k\n"
        "h, pos, k = np.zeros(3), 0, 5\n"
        "for it in range(200):\n"
        "    h, pos, k = step(h, pos, k)\n"
        "print(pos, type(pos).__name__, k, type(k).__name__, h)",
        # Inside a function.
        "def train(n, start):\n"
        "    h, pos, k = np.ones(3), start, 0\n"
        "    for it in range(n):\n"
        "        h, pos, k = step(h, pos, k)\n"
        "    return h, pos, k\n"
        "print(train(150, 0), train(150, 9))",
    ]),
    chunk_program("if_on_a_carried_int_leaving_the_relaxed_range", [
        # The int grows past 2**31 - 1 in the middle of the loop: the chunk
        # that would leave the range fails its assert and replays one by
        # one, and CPython goes on with a big int; the reset never happens.
        SETUP + "acc = np.zeros(2)\nn = 2**31 - 400",
        "for it in range(250):\n"
        "    if n >= 2**40:\n"
        "        n = 0\n"
        "    acc = acc + 1.0\n"
        "    n = n + 5\n"
        "print(it, n, type(n).__name__, n - 2**31, acc)",
    ]),
    chunk_program("minibatch_slices_that_cannot_chunk", [
        # The sliced array is updated in place by the body: its slices
        # are views that must see the updates, so no chunks.
        SETUP + "Z = np.arange(60.0).reshape(20, 3)\nbs = 2",
        "for i in range(0, 20, bs):\n"
        "    zb = Z[i:i + bs]\n"
        "    Z += 1.0\n"
        "    s = zb.sum()\n"
        "print(i, s, zb, zb.base is Z, Z.sum())",
    ], chunks=False),
]
