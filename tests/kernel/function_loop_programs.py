"""Cell programs for on-stack replacement: loops inside functions defined in
a cell and called once (test_function_loops.py). Same contract as
cell_programs.py: the results are always compared with the engine off;
`graphs` says whether some loop must run iterations as graphs."""

from cell_programs import SETUP, cell_program

PROGRAMS = [
    cell_program("for_loop_locals_and_prints", [
        SETUP + "W = np.linspace(-1, 1, 12).reshape(3, 4)",
        "def run(x, steps):\n"
        "    acc = np.zeros(3)\n"
        "    for i in range(steps):\n"
        "        h = np.tanh(W @ x)\n"
        "        acc += h * 0.5\n"
        "        x = x * 0.9\n"
        "        print(acc.sum(), end=' ')\n"
        "    return i, h, acc, x\n"
        "res = run(np.ones(4), 9)\n"
        "res",
        "run(np.ones(4) * 2.0, 3)",
    ]),
    cell_program("while_break_continue_else", [
        SETUP,
        "def walk(limit):\n"
        "    y = np.ones(4)\n"
        "    n = 0\n"
        "    while n < limit:\n"
        "        n += 1\n"
        "        if n == 3:\n"
        "            continue\n"
        "        y = y * 1.1 + 0.5\n"
        "        if n == 8:\n"
        "            break\n"
        "    else:\n"
        "        print('while else', n)\n"
        "    return n, y\n"
        "print(walk(12))\n"
        "print(walk(6))",
        "def count(values):\n"
        "    total = 0.5\n"
        "    for k, v in enumerate(values):\n"
        "        total = total * 1.5 + v\n"
        "        if v > 6.0:\n"
        "            break\n"
        "    else:\n"
        "        k = -1\n"
        "    return k, v, total\n"
        "count([1.0, 2.0, 3.0, 4.0, 5.0, 9.0, 1.0]), count([1.0, 2.0])",
    ]),
    cell_program("exception_in_iteration_k", [
        SETUP + "data = [np.ones(3) * j for j in range(7)] + [np.ones(4), np.ones(3)]",
        "def accumulate(data):\n"
        "    s = np.zeros(3)\n"
        "    k = -1\n"
        "    try:\n"
        "        for k, d in enumerate(data):\n"
        "            s += d\n"
        "            print(s.sum())\n"
        "    except ValueError as e:\n"
        "        print('caught', type(e).__name__)\n"
        "    return k, s\n"
        "accumulate(data)",
        "def stop_at(n):\n"
        "    acc = np.zeros(2)\n"
        "    for q in range(n):\n"
        "        acc += 1.5\n"
        "        if q == 7:\n"
        "            raise ValueError('stopped at ' + str(q))\n"
        "    return acc\n"
        "stop_at(10)",
    ]),
    cell_program("globals_and_nested_loops", [
        SETUP + "counter = 0\nM = np.zeros((3, 4))",
        "def fill(rows):\n"
        "    global counter\n"
        "    row = np.arange(4.0)\n"
        "    for r in range(rows):\n"
        "        for c in range(4):\n"
        "            M[r, c] = r * 10 + c\n"
        "        M[r] *= 2.0\n"
        "        row = row + M[r]\n"
        "        counter += 1\n"
        "    return r, c, row\n"
        "fill(3)",
        "counter, M",
    ]),
    # A local a lambda captures (a cell variable) that the loop only reads:
    # read from the cell at every iteration.
    cell_program("closure_read_in_the_loop", [
        SETUP,
        "def with_closure(n):\n"
        "    scale = 2.0\n"
        "    f = lambda v: v * scale\n"
        "    acc = np.zeros(2)\n"
        "    for j in range(n):\n"
        "        acc = acc + scale\n"
        "    return acc, f(acc), j\n"
        "with_closure(12)",
    ]),
    # A captured local the loop rebinds: the lambda must see every new value
    # (its cell), so the loop stays in CPython.
    cell_program("closure_rebound_stays_in_cpython", [
        SETUP,
        "def rebinding(n):\n"
        "    scale = np.ones(2)\n"
        "    f = lambda v: v * scale\n"
        "    acc = np.zeros(2)\n"
        "    for j in range(n):\n"
        "        scale = scale * 1.5\n"
        "        acc = f(acc + 1.0)\n"
        "    return acc, scale, f(acc), j\n"
        "rebinding(6)",
    ], graphs=False),
    # W2's LSTM: time steps kept in dicts that a comprehension after the
    # loops reads (so `hs` is a cell variable of the function), written by
    # item in the first loop and read in the second.
    cell_program("dict_of_steps_read_by_a_comprehension", [
        SETUP + "Wx = rng.standard_normal((4, 6)) * 0.3\nWh = rng.standard_normal((6, 6)) * 0.3\n"
        "xs = rng.standard_normal((12, 2, 4))",
        "def steps(xs, h):\n"
        "    T = xs.shape[0]\n"
        "    hs, cs = {-1: h}, {-1: h * 0.0}\n"
        "    for t in range(T):\n"
        "        a = xs[t] @ Wx + hs[t - 1] @ Wh\n"
        "        cs[t] = cs[t - 1] * 0.5 + np.tanh(a)\n"
        "        hs[t] = np.tanh(cs[t])\n"
        "    total = np.zeros_like(h)\n"
        "    for t in reversed(range(T)):\n"
        "        total = total + hs[t] * cs[t - 1]\n"
        "    h_all = np.stack([hs[t] for t in range(T)])\n"
        "    return h_all, total, sorted(hs)\n"
        "out = steps(xs, np.zeros((2, 6)))\n"
        "out",
        "steps(xs[:5], np.ones((2, 6)))",
    ]),
    cell_program("generator_untouched", [
        SETUP,
        "def gen(n):\n"
        "    v = np.zeros(2)\n"
        "    for j in range(n):\n"
        "        v = v + 1.0\n"
        "        yield v.sum()\n"
        "list(gen(6))",
    ], graphs=False),
    cell_program("training_loop_in_a_function", [
        SETUP + "X = rng.standard_normal((32, 8))\nY = rng.standard_normal((32, 2))\n"
        "W1 = rng.standard_normal((8, 16)) * 0.1\nW2 = rng.standard_normal((16, 2)) * 0.1",
        "def train(W1, W2, epochs, lr=0.01):\n"
        "    for epoch in range(epochs):\n"
        "        H = np.tanh(X @ W1)\n"
        "        P = H @ W2\n"
        "        E = P - Y\n"
        "        loss = (E * E).mean()\n"
        "        gW2 = np.dot(H.T, E)\n"
        "        gH = np.dot(E, W2.T) * (1 - H * H)\n"
        "        gW1 = np.dot(X.T, gH)\n"
        "        W2 = W2 - lr * gW2\n"
        "        W1 -= lr * gW1\n"
        "    return loss, epoch, W2\n"
        "loss, epoch, W2 = train(W1, W2, 15)\n"
        "loss, epoch",
        "W1.sum(), W2",
    ]),
    # The `try` keeps each function as a whole in CPython (even at threshold
    # 0), so the loops are entered in the middle of the running frame.
    cell_program("locals_edge_cases", [
        SETUP,
        "def read_before_write(n):\n"
        "    try:\n"
        "        for i in range(n):\n"
        "            if i > 0:\n"
        "                acc = acc + prev\n"
        "            else:\n"
        "                acc = np.zeros(2)\n"
        "            prev = np.ones(2) * 0.5\n"
        "    finally:\n"
        "        pass\n"
        "    return acc, prev, i\n"
        "read_before_write(9)",
        "def append_to_local(n):\n"
        "    hs = []\n"
        "    h = np.ones(3)\n"
        "    try:\n"
        "        for i in range(n):\n"
        "            h = np.tanh(h * 1.1 + 0.1)\n"
        "            hs.append(h)\n"
        "    finally:\n"
        "        pass\n"
        "    return hs, h\n"
        "append_to_local(8)",
        "def over_items(d):\n"
        "    acc = np.zeros(2)\n"
        "    total = 0.0\n"
        "    try:\n"
        "        for k, v in d.items():\n"
        "            acc = acc + v * 2.0\n"
        "            total += float(v.sum()) * 0.5\n"
        "    finally:\n"
        "        pass\n"
        "    return acc, k, v, total\n"
        "over_items({i: np.ones(2) * i for i in range(7)})",
        "def step(w, g):\n"
        "    return w - 0.1 * g\n"
        "def with_callee(n):\n"
        "    w = np.ones(4)\n"
        "    try:\n"
        "        for i in range(n):\n"
        "            w = step(w, w * 0.5)\n"
        "    finally:\n"
        "        pass\n"
        "    return w\n"
        "with_callee(10)",
    ]),
    # The demo RNN's backward loop: lists indexed by the counter and by an
    # item of another list, the counter relaxed once, not recompiled per value.
    cell_program("counter_indexed_lists_in_a_function", [
        SETUP + "hs = [np.full((4, 1), 0.1 * i) for i in range(26)]\n"
        "ix = [(3 * i) % 7 for i in range(80)]\n"
        "onehot = [np.eye(7)[:, [i]] for i in range(7)]",
        "def backward(n):\n"
        "    dh = np.zeros((4, 1))\n"
        "    for pos in range(0, n, 25):\n"
        "        for t in reversed(range(25)):\n"
        "            dh = dh * 0.5 + hs[t + 1] * hs[t] + onehot[ix[pos + t + 1]][:4]\n"
        "            if t % 8 == 0:\n"
        "                print(pos, t, dh.sum())\n"
        "    return dh, t, pos\n"
        "backward(50)",
    ]),
    # An accumulator that becomes a NumPy float64 after the first trip
    # (`loss -= np.log(...)`, as the demo RNN's forward loop does): a 0-d
    # input of the loop's graph, not a reason to stay in CPython.
    cell_program("numpy_scalar_accumulator_in_a_function", [
        SETUP + "ps = [np.linspace(0.1, 0.9, 5) * (k + 1) / 30 for k in range(30)]",
        "def nll(n):\n"
        "    loss, seen = 0.0, []\n"
        "    for t in range(n):\n"
        "        seen.append(loss)\n"
        "        loss -= np.log(ps[t][t % 5])\n"
        "        loss = loss * 0.5\n"
        "    return loss, type(loss).__name__, seen\n"
        "nll(25)",
    ]),
    # The demo RNN's training loop in small: per iteration, lists built by
    # the code (`hs, ps = [h], []`, a comprehension of gradients) appended to
    # in an unrolled time loop, read back by index, zipped with list
    # arguments, rebound as the function's locals after the iteration; a
    # counter branch resets the position.
    cell_program("lists_built_and_appended_in_a_function_loop", [
        SETUP + "params = [rng.standard_normal((3, 3)) * 0.5, np.zeros(3)]\n"
        "xs = [rng.standard_normal(3) for _ in range(9)]",
        "def train(iterations):\n"
        "    h, pos, losses = np.zeros(3), 0, []\n"
        "    for it in range(iterations):\n"
        "        if pos + 4 >= len(xs):\n"
        "            h, pos = np.zeros(3), 0\n"
        "        W, b = params\n"
        "        hs, ps, loss = [h], [], 0.0\n"
        "        for t in range(3):\n"
        "            h = np.tanh(W @ hs[t] + xs[pos + t] + b)\n"
        "            hs.append(h); ps.append(h * 0.5)\n"
        "            loss -= np.log(1.5 + h[0])\n"
        "        grads = [np.zeros_like(w) for w in params]\n"
        "        for t in reversed(range(3)):\n"
        "            grads[0] += np.outer(ps[t], hs[t])\n"
        "            grads[1] += hs[t + 1]\n"
        "        for w, g in zip(params, grads):\n"
        "            w -= 0.01 * g\n"
        "        losses.append(loss)\n"
        "        pos += 3\n"
        "    return losses, hs, ps, grads, h, pos, hs[-1] is h\n"
        "out = train(12)\n"
        "out[0], out[5], out[6], type(out[1]).__name__",
        "out[1], out[2], out[3], params",
    ]),
]

# A loop that leaves on data (`if loss < tol: break`): the iteration's graph
# carries the exit; the locals must leave every path alike (none rebound after
# the exit), so the second function stays in CPython iteration by iteration.
PROGRAMS += [
    cell_program("exit_on_data_in_a_function", [
        SETUP + "hist = []",
        "def train(w, tol):\n"
        "    for i in range(400):\n"
        "        w = w * 0.99\n"
        "        loss = float((w * w).sum())\n"
        "        hist.append(loss)\n"
        "        if loss < tol:\n"
        "            print('stop', i)\n"
        "            break\n"
        "        print(i, end=' ')\n"
        "    else:\n"
        "        print('no break')\n"
        "    return i, w, loss\n"
        "print(train(np.ones(4), 1.0))\n"
        "print(train(np.ones(4), -1.0))",
        "len(hist), hist[-2:]",
    ]),
    cell_program("exit_on_data_in_a_function_rebound_after", [
        SETUP,
        "def train(w):\n"
        "    last = 0.0\n"
        "    for i in range(300):\n"
        "        w = w * 0.99\n"
        "        if np.isnan(w.sum()) or w.sum() < 1.0:\n"
        "            break\n"
        "        last = float(w[0])\n"
        "    return i, w, last\n"
        "train(np.ones(4))",
    ], graphs=False),
]
