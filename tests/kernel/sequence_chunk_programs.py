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
