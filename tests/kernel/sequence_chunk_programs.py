"""Cell programs for chunks of loops over lists and tuples
(test_sequence_chunks.py; engine/loop_sequences.hpp).

Same contract as chunk_programs.py: each program runs in one kernel with the
engine off, on at threshold 0 and on at the default settings; every output
and the final globals are compared bit for bit, and `chunks` says whether
some loop must run chunks at threshold 0.
"""

from chunk_programs import SETUP, chunk_program

PROGRAMS = [
    chunk_program("list_and_tuple_of_floats", [
        SETUP + "a = np.zeros(6)\ns = 0.0\nxs = [0.5 * i - 3.0 for i in range(100)]\n"
        "ts = tuple(0.25 * i for i in range(37))",
        "for x in xs:\n"
        "    a = a * 0.5 + x\n"
        "    s = s + x * 2.0\n"
        "print(x, x is xs[-1], a, s)",
        # A tuple, whose 37 items end in the middle of a chunk; then an
        # `else:` clause, and the same cell run again.
        "for x in ts:\n"
        "    a = a + x\n"
        "else:\n"
        "    print('else', x)\n"
        "print(x, x is ts[-1], a)",
        "for x in ts:\n"
        "    a = a + x\n"
        "else:\n"
        "    print('else', x)\n"
        "print(x, x is ts[-1], a)",
    ]),
    chunk_program("list_of_arrays", [
        SETUP + "rng = np.random.default_rng(5)\n"
        "grads = [rng.standard_normal((4, 3)) for _ in range(60)]\n"
        "w = np.ones((4, 3))\nW0 = w\nnorm = 0.0",
        # Arrays of one shape, a weight updated in place: the target is the
        # list's own array after the loop.
        "for g in grads:\n"
        "    w -= 0.01 * g\n"
        "    norm = norm + float((g * g).sum())\n"
        "print(g is grads[-1], w is W0, w, norm)",
        # Items of another shape from the middle of the list on: the chunks
        # stop before it, a new graph for the rest.
        "grads[30:] = [rng.standard_normal(3) for _ in range(30)]\n"
        "v = np.zeros(3)\n"
        "for g in grads:\n"
        "    v = v + g.sum(axis=0) if g.ndim == 2 else v + g\n"
        "print(g is grads[-1], v)",
    ]),
    chunk_program("list_of_ints_break_and_counter_ifs", [
        SETUP + "ns = list(range(3, 300, 2))\nacc = np.zeros(2)\ntotal = 0",
        # Counter `if`s on the item: a print every so often and a break.
        "for n in ns:\n"
        "    acc = acc + n * 0.5\n"
        "    total += n\n"
        "    if n % 50 == 1:\n"
        "        print('at', n, acc)\n"
        "    if n == 201:\n"
        "        break\n"
        "else:\n"
        "    print('no break')\n"
        "print(n, total, acc, type(total))",
        # Mixed items: floats, then ints, then a string (CPython raises on
        # it at exactly that iteration, every earlier one committed).
        "mixed = [0.5] * 20 + list(range(20)) + ['x'] + [1.0] * 5\n"
        "z = np.zeros(2)\n"
        "try:\n"
        "    for m in mixed:\n"
        "        z = z + m\n"
        "except TypeError as e:\n"
        "    print('TypeError', m, z)",
    ]),
    chunk_program("failing_assert_and_aliased_items", [
        SETUP + "vals = [float(i) for i in range(200)]\nb = np.zeros(3)",
        # The assert fails at iteration 120, inside a chunk: nothing of that
        # chunk is committed, its iterations replay one by one.
        "for v in vals:\n"
        "    b = b + v\n"
        "    assert b[0] < 7200.0, v\n",
        "print(v, b)",
        # An array the loop updates in place is also one of the items: the
        # chunks holding it run one by one (a copy of it would be stale).
        "arrs = [np.full(4, float(i)) for i in range(40)]\n"
        "acc = arrs[25]\n"
        "for r in arrs:\n"
        "    acc += r\n"
        "print(r is arrs[-1], acc, arrs[25], arrs[30])",
    ]),
    chunk_program("list_loop_in_a_function", [
        SETUP,
        "def run(items, n):\n"
        "    w = np.zeros(3)\n"
        "    t = 0.0\n"
        "    try:\n"
        "        for it in items:\n"
        "            w = w * 0.9 + it\n"
        "            t = t + 1.0\n"
        "    finally:\n"
        "        pass\n"
        "    return w, t, it\n"
        "print(run([0.1 * k for k in range(150)], 3))\n"
        "print(run(tuple(range(90)), 3))\n"
        "rows = [np.arange(3.0) + k for k in range(70)]\n"
        "out = run(rows, 3)\n"
        "print(out, out[2] is rows[-1])",
    ]),
    chunk_program("tuple_targets", [
        SETUP + "rng = np.random.default_rng(6)\n"
        "pairs = [(rng.standard_normal(3), float(i) * 0.1) for i in range(80)]\n"
        "w = np.zeros(3)\nloss = 0.0",
        # `for x, y in pairs`: each item unpacked; the names are the last
        # tuple's own objects after the loop.
        "for x, y in pairs:\n"
        "    err = x @ w - y\n"
        "    loss = loss + err * err\n"
        "    w = w - 0.01 * err * x\n"
        "print(x is pairs[-1][0], y is pairs[-1][1], w, loss)",
        # Ints and floats; a list (not a tuple) in the middle, then an item
        # of three values: CPython raises at exactly that iteration.
        "mix = [(k, 0.5 * k) for k in range(30)] + [[30, 15.0]] + [(k, 1.0) for k in range(31, 50)]\n"
        "mix.append((1, 2, 3))\n"
        "acc = np.zeros(2)\ncount = 0\n"
        "try:\n"
        "    for k, v in mix:\n"
        "        acc = acc + v\n"
        "        count += k\n"
        "except ValueError as e:\n"
        "    print('ValueError', e, k, v)\n"
        "print(k, v, acc, count)",
        "def fit(data):\n"
        "    w = np.zeros(3)\n"
        "    try:\n"
        "        for a, b in data:\n"
        "            w = w * 0.99 + a * b\n"
        "    finally:\n"
        "        pass\n"
        "    return w, a, b\n"
        "out = fit(pairs)\n"
        "print(out, out[1] is pairs[-1][0])",
    ]),
    chunk_program("list_mutated_by_the_body", [
        # The body appends to the list it iterates: CPython's iteration
        # sees the new items; never a chunk (an effect in the body).
        SETUP + "grow = [1.0, 2.0, 3.0]\nc = np.zeros(2)",
        "for y in grow:\n"
        "    c = c + y\n"
        "    if len(grow) < 60:\n"
        "        grow.append(y * 0.5)\n"
        "print(y, len(grow), c)",
        # The target's array written through: the list's arrays must see it.
        "held = [np.zeros(3) for _ in range(30)]\n"
        "for h in held:\n"
        "    h[1] = 2.0\n"
        "    c = c + h.sum()\n"
        "print(c, held[0], held[-1])",
    ], chunks=False),
]

# enumerate, zip and the rows of an array (engine/loop_streams.cpp).
PROGRAMS += [
    chunk_program("enumerate_floats_and_arrays", [
        SETUP + "xs = [0.25 * k - 4.0 for k in range(90)]\ncz = np.zeros(4)\nhits = 0.0\n"
        "rng = np.random.default_rng(7)\nws = [rng.standard_normal(3) for _ in range(70)]",
        # The count and the list's items; the names are CPython's after the
        # loop (the list's own last item, the count's int).
        "for i, x in enumerate(xs):\n"
        "    cz = cz * 0.5 + x\n"
        "    hits = hits + i * 0.5\n"
        "print(i, x, x is xs[-1], type(i), cz, hits)",
        "acc = np.zeros(3)\n"
        "for n, w in enumerate(ws, 10):\n"
        "    acc = acc * 0.9 + w * n\n"
        "print(n, w is ws[-1], acc)",
        # Over a range, and a tuple, with a start beyond the range's ints.
        "tot = 0.0\n"
        "for j, r in enumerate(range(5, 300, 3), -40):\n"
        "    tot = tot + j * 0.5 + r\n"
        "print(j, r, tot)",
        "for j, r in enumerate(tuple(xs[:45])):\n"
        "    tot = tot + r\n"
        "else:\n"
        "    print('else', j, r)\n"
        "print(j, r, tot)",
    ]),
    chunk_program("enumerate_counter_ifs_and_break", [
        SETUP + "vs = [float(k) for k in range(400)]\nm = np.zeros(2)",
        # Counter `if`s on the count: a print every so often and a break.
        "for i, v in enumerate(vs):\n"
        "    m = m + v\n"
        "    if i % 60 == 0:\n"
        "        print('at', i, m)\n"
        "    if i == 250:\n"
        "        break\n"
        "else:\n"
        "    print('no break')\n"
        "print(i, v, m)",
        # An `if` on the item (a float): not a counter test.
        "s = 0.0\n"
        "for i, v in enumerate(vs):\n"
        "    s = s + (v if v > 100.0 else 1.0)\n"
        "print(i, v, s)",
    ]),
    chunk_program("zip_lists_and_ranges", [
        SETUP + "rng = np.random.default_rng(8)\n"
        "X = [rng.standard_normal(3) for _ in range(80)]\nY = [0.1 * k for k in range(80)]\n"
        "w = np.zeros(3)\nloss = 0.0",
        "for x, y in zip(X, Y):\n"
        "    err = x @ w - y\n"
        "    loss = loss + err * err\n"
        "    w = w - 0.01 * err * x\n"
        "print(x is X[-1], y is Y[-1], w, loss)",
        # A list and a range; then lengths that differ: the loop ends in the
        # middle of a chunk, after zip took one more item of the longer
        # first list.
        "acc = 0.0\n"
        "for y, k in zip(Y, range(1000, 0, -7)):\n"
        "    acc = acc + y * k\n"
        "print(y, k, acc)",
        "longer = iter(Y)\n"
        "for y, k in zip(longer, range(53)):\n"
        "    acc = acc + y - k\n"
        "print(y, k, acc, next(longer))\n"
        "del longer",
        "for a, b, c in zip(Y, X, range(61)):\n"
        "    w = w + b * a - c\n"
        "else:\n"
        "    print('else', a, c)\n"
        "print(a, b is X[60], c, w)",
    ]),
    chunk_program("rows_of_an_array", [
        SETUP + "rng = np.random.default_rng(9)\nM = rng.standard_normal((150, 4))\n"
        "h = np.zeros(4)\nT = rng.standard_normal((40, 2, 3))",
        # The rows of a 2-d array: the target after the loop is the view
        # CPython's `for` bound.
        "for row in M:\n"
        "    h = np.tanh(h * 0.5 + row)\n"
        "print(h, row, row.base is M, np.shares_memory(row, M[-1]), row.flags.owndata)",
        "t = np.zeros((2, 3))\n"
        "for blk in T:\n"
        "    t = t + blk * blk\n"
        "print(t, blk.base is T, blk.shape)",
        # enumerate over the rows, and the rows zipped with a list.
        "for i, row in enumerate(M):\n"
        "    h = h * 0.9 + row * i\n"
        "print(i, h, row.base is M)",
        "cs = [0.01 * k for k in range(120)]\n"
        "for row, c in zip(M, cs):\n"
        "    h = h + row * c\n"
        "print(h, c, row.base is M)",
        # A row of the array updated in place by the loop: the chunks whose
        # rows hold it run one by one (the graph would read stale rows).
        "acc = M[60]\n"
        "for row in M:\n"
        "    acc += row * 0.5\n"
        "print(acc, M[61], M[60] is acc, np.shares_memory(acc, M))",
    ]),
    chunk_program("streams_failing_assert_and_a_function", [
        SETUP + "ps = [float(k) for k in range(300)]\nq = np.zeros(2)",
        # The assert fails at iteration 170, inside a chunk.
        "for i, p in enumerate(ps):\n"
        "    q = q + p\n"
        "    assert q[0] < 14000.0, i\n",
        "print(i, p, q)",
        # Loops in a function (on-stack replacement).
        "def fit(xs, ys, rows):\n"
        "    w = np.zeros(3)\n"
        "    t = 0.0\n"
        "    try:\n"
        "        for i, x in enumerate(xs):\n"
        "            t = t * 0.99 + x * i\n"
        "        for a, b in zip(xs, ys):\n"
        "            w = w + a * b\n"
        "        for r in rows:\n"
        "            w = w * 0.5 + r\n"
        "    finally:\n"
        "        pass\n"
        "    return w, t, i, x, a, b, r, r.base is rows\n"
        "rng = np.random.default_rng(10)\n"
        "print(fit(ps[:120], [rng.standard_normal(3) for _ in range(100)], rng.standard_normal((90, 3))))",
    ]),
    chunk_program("streams_left_to_cpython", [
        # A body mutating the list it enumerates, an array written through
        # while its rows are iterated, strict zip, a generator, a 1-d array,
        # one iterator twice in a zip, the target rebound: CPython's
        # iteration exactly, never a chunk.
        SETUP + "grow = [1.0, 2.0, 3.0]\nc = np.zeros(2)",
        "for i, y in enumerate(grow):\n"
        "    c = c + y * i\n"
        "    if len(grow) < 60:\n"
        "        grow.append(y * 0.5)\n"
        "print(i, y, len(grow), c)",
        "A = np.ones((50, 3))\nacc = np.zeros(3)\n"
        "for row in A:\n"
        "    A += 1.0\n"
        "    acc = acc + row\n"
        "print(acc, A[0], row)",
        "for a, b in zip([1.0] * 40, range(40), strict=True):\n"
        "    c = c + a * b\n"
        "for g in (k * 0.5 for k in range(40)):\n"
        "    c = c + g\n"
        "for e in np.arange(40.0):\n"
        "    c = c + e\n"
        "print(c, type(e))",
        "it = iter([float(k) for k in range(80)])\n"
        "for a, b in zip(it, it):\n"
        "    c = c + a - b\n"
        "print(a, b, c)\n"
        "del it",
        "for i, v in enumerate([0.5] * 50):\n"
        "    v = v * 2.0\n"
        "    c = c + v\n"
        "print(i, v, c)",
    ], chunks=False),
]
