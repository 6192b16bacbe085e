"""Cell programs for the loop-region differential tests (test_cell_loops.py).

Each program is a list of cells run in order in one kernel. `graphs` says
whether, with the engine on, some loop of the program must run iterations as
graphs (the report's "loop" rows gain graph runs); `compiled_functions` names
functions that must run as graphs as their own regions (a function the loop's
graph cannot inline is called normally, through the frame hook). A function
called from a loop body is inlined into the iteration's graph when it
converts. The expectations are about *where* the engine acts; the results
themselves are always compared with the engine off.
"""

from dataclasses import dataclass, field

SETUP = """import numpy as np
rng = np.random.default_rng(7)
"""


@dataclass
class cell_program:
    name: str
    cells: list
    graphs: bool = True
    compiled_functions: list = field(default_factory=list)
    cell_graphs: bool = False  # some cell run again must run as a graph


PROGRAMS = [
    cell_program("prints_and_loop_variable", [
        SETUP + "W = np.linspace(-1, 1, 12).reshape(3, 4)\nx = np.ones(4)\nacc = np.zeros(3)",
        "for i in range(6):\n"
        "    h = np.tanh(W @ x)\n"
        "    acc += h * 0.5\n"
        "    x = x * 0.9\n"
        "    print(acc.sum(), end=' ')\n"
        "    print('step', sep='-')\n"
        "i, h",
        "x.sum(), acc",
    ]),
    cell_program("break_continue_else", [
        SETUP + "acc = np.full(4, 10.0)",
        "for k in range(10):\n"
        "    acc -= 1.0\n"
        "    if k == 2:\n"
        "        continue\n"
        "    if k == 6:\n"
        "        break\n"
        "    acc *= 1.01\n"
        "else:\n"
        "    print('no break')\n"
        "print(k, acc)",
        "for k in range(4):\n"
        "    acc += 2.0\n"
        "    if k == 1:\n"
        "        continue\n"
        "    acc = acc * 0.5\n"
        "else:\n"
        "    print('else ran', k)\n"
        "acc",
    ]),
    cell_program("exception_in_iteration_k", [
        SETUP + "data = [np.ones(3) * j for j in range(7)] + [np.ones(4), np.ones(3)]\ns = np.zeros(3)",
        "for d in data:\n"
        "    s += d\n"
        "    print(s.sum())",
        "s, d.shape",
        "acc = np.zeros(2)\n"
        "for q in range(9):\n"
        "    acc += 1.5\n"
        "    if q == 7:\n"
        "        raise ValueError('stopped at ' + str(q))\n"
        "    print(acc)",
        "q, acc",
    ]),
    cell_program("division_by_zero_in_iteration_k", [
        "v = 0.0\nden = 3.0",
        "for z in range(6):\n"
        "    den = den - 1.0\n"
        "    v = v + 1.0 / den",
        "z, den, v",
    ], graphs=False),
    cell_program("nested_loops", [
        SETUP + "M = np.zeros((3, 4))\nrow = np.arange(4.0)",
        "for r in range(3):\n"
        "    for c in range(4):\n"
        "        M[r, c] = r * 10 + c\n"
        "    M[r] *= 2.0\n"
        "    row = row + M[r]\n"
        "r, c, M, row",
        "total = np.zeros(4)\n"
        "for r2 in range(3):\n"
        "    for item in [1.0, 2.0]:\n"
        "        total = total + row * item\n"
        "        if item > 1.5:\n"
        "            break\n"
        "    total = total - 1.0\n"
        "total, item",
    ]),
    cell_program("list_mutated_by_the_body", [
        "items = [1, 2, 3, 4]\ntot = 0.5",
        "for v in items:\n"
        "    tot = tot * 1.5 + v\n"
        "    if v < 3:\n"
        "        items.append(v + 10)\n"
        "items, tot, v",
    ]),
    cell_program("while_loop", [
        SETUP + "n = 0\ny = np.ones(4)",
        "while n < 7:\n"
        "    y = y * 1.1 + 0.5\n"
        "    n += 1\n"
        "else:\n"
        "    print('while else', n)\n"
        "n, y",
        "while True:\n"
        "    y -= 0.25\n"
        "    n -= 1\n"
        "    if n < 2:\n"
        "        break\n"
        "n, y",
    ]),
    cell_program("global_type_changes_mid_loop", [
        "g = 3\nsteps = []",
        "for t in range(6):\n"
        "    if t == 3:\n"
        "        g = float(g) + 0.5\n"
        "    g = g * 2\n"
        "    print(g)",
        "g, t",
    ]),
    cell_program("shape_changes_on_the_last_iteration", [
        SETUP + "arrs = [np.ones((2, 3)) * q for q in range(5)] + [np.ones((3, 3))]\nsq = 0.0",
        "for a in arrs:\n"
        "    b2 = a * 2.0 + 1.0\n"
        "    sq = sq + float(b2.sum())\n"
        "    print(b2.shape, sq)",
        "b2, sq",
    ]),
    cell_program("hot_function_called_from_the_body", [
        SETUP + "def step(w, g):\n    return w - 0.1 * g\nw = np.ones(5)",
        "for it in range(8):\n"
        "    w = step(w, w * 0.5)\n"
        "w",
    ]),
    cell_program("comprehension_and_helper_in_the_body", [
        SETUP + "def scale(v, f):\n    return v * f\nq = np.ones(3)",
        "for m in range(6):\n"
        "    parts = [scale(q, f) for f in (0.5, 0.25)]\n"
        "    q = parts[0] + parts[1] + 0.1\n"
        "q, m",
    ]),  # the comprehension is a list the loop's graph builds, `scale` inlined in it
    cell_program("called_function_rebound_between_cells", [
        SETUP + "def step(w, g):\n    return w - 0.1 * g\nw = np.ones(5)",
        "for it in range(8):\n"
        "    w = step(w, w * 0.5)\n"
        "w",
        "def step(w, g):\n    return w * 0.5 + g",
        "for it in range(8):\n"
        "    w = step(w, np.ones(5))\n"
        "w, it",
    ]),
    cell_program("called_function_writes_its_argument_and_names_swap", [
        SETUP + "def relax(u, out, a):\n"
        "    out[1:-1] = u[1:-1] + a * (u[2:] + u[:-2] - 2 * u[1:-1])\n"
        "u = np.zeros(16)\nu[0] = 1.0\nv = u.copy()",
        "for s in range(12):\n"
        "    relax(u, v, 0.25)\n"
        "    u, v = v, u\n"
        "u, v, u is v",
    ]),
    cell_program("called_function_with_global_and_print", [
        SETUP + "count = 0\n"
        "def tick(x):\n"
        "    global count\n"
        "    count += 1\n"
        "    print('tick', count, float(x.sum()))\n"
        "    return x * 2.0 - 1.0\n"
        "x = np.linspace(0, 1, 4)",
        "for j in range(7):\n"
        "    x = tick(x) * 0.5\n"
        "count, x",
    ]),
    cell_program("called_function_raises_in_iteration_k", [
        SETUP + "def checked(v, k):\n"
        "    if k == 9:\n"
        "        raise ValueError(f'bad step {k}')\n"
        "    return v + 1.0\n"
        "acc = np.zeros(3)",
        "for k in range(12):\n"
        "    acc = checked(acc, k) * 1.5",
        "acc, k",
    ]),
    cell_program("nested_calls_and_keyword_arguments", [
        SETUP + "def dense(x, W, b=0.0):\n    return np.maximum(x @ W + b, 0.0)\n"
        "def model(x, W1, W2, scale=1.0):\n    return dense(dense(x, W1), W2, b=0.1) * scale\n"
        "X = rng.standard_normal((6, 4))\nA = rng.standard_normal((4, 5))\nB = rng.standard_normal((5, 3))",
        "for r in range(9):\n"
        "    out = model(X, A, B, scale=0.5)\n"
        "    A = A - 0.01 * out.sum() * A\n"
        "out, A",
    ]),
    cell_program("minibatch_views_sliced_by_the_counter", [
        SETUP + "X = rng.standard_normal((50, 6))\nY = rng.standard_normal((50, 2))\n"
        "W = np.zeros((6, 2))\nbs = 8",
        "for k in range(7):\n"
        "    xb = X[k * bs:(k + 1) * bs]\n"
        "    yb = Y[k * bs:(k + 1) * bs]\n"
        "    err = xb @ W - yb\n"
        "    W = W - 0.05 * (xb.T @ err) / xb.shape[0]\n"
        "    loss = float((err * err).mean())\n"
        "xb.base is X, yb.base is Y, xb.shape, W, loss",
        "for k in range(3):\n"
        "    xb = X[k * bs:(k + 1) * bs]\n"
        "    xb *= 0.5\n"
        "X.sum(), xb.base is X",
    ]),
    cell_program("training_loop", [
        SETUP + "X = rng.standard_normal((32, 8))\nY = rng.standard_normal((32, 2))\n"
        "W1 = rng.standard_normal((8, 16)) * 0.1\nW2 = rng.standard_normal((16, 2)) * 0.1\nlr = 0.01",
        "for epoch in range(12):\n"
        "    H = np.tanh(X @ W1)\n"
        "    P = H @ W2\n"
        "    E = P - Y\n"
        "    loss = (E * E).mean()\n"
        "    gW2 = np.dot(H.T, E)\n"
        "    gH = np.dot(E, W2.T) * (1 - H * H)\n"
        "    gW1 = np.dot(X.T, gH)\n"
        "    W2 -= lr * gW2\n"
        "    W1 -= lr * gW1\n"
        "print(loss)",
        "W1.sum(), W2, epoch",
    ]),
    cell_program("rerun_cells", [
        SETUP + "W = np.linspace(0, 1, 20).reshape(4, 5)\nx = np.ones(5)",
    ] + ["y = np.tanh(W @ x)\nx = x * 0.5 + 0.25\nprint(y.sum())\ny.max()"] * 8 + [
        "W = np.ones((4, 6))\nx = np.linspace(0, 1, 6)",
    ] + ["y = np.tanh(W @ x)\nx = x * 0.5 + 0.25\nprint(y.sum())\ny.max()"] * 3 + [
        "q = float(x.sum())\nr = 1.0 / (q - q)\nr",
    ] * 7 + [
        "total = x.sum()\nprint('total', total)",
    ] * 7, graphs=False, cell_graphs=True),
    cell_program("rerun_cell", [
        SETUP + "u = np.zeros(3)",
        "for p in range(4):\n    u = u + 1.0\nu",
        "for p in range(4):\n    u = u + 1.0\nu",
    ]),
    # The loop counter changes every iteration: it becomes an int64 input
    # used in `%` and `//` (Python's sign rules), as an index (negative wrap)
    # and as a float.
    cell_program("counter_as_input", [
        SETUP + "table = np.arange(40.0).reshape(10, 4)\nacc = np.zeros(4)",
        "for i in range(30):\n"
        "    acc = acc + table[i % 10] * 0.5\n"
        "    acc = acc - table[-1 - i % 10] * float(i // 7)\n"
        "    k = (i - 12) // 5 + (i % -4)\n"
        "acc, i, k",
    ]),
    # A branch on the counter with effects (a print every 10 steps) is
    # decided by a guard on its outcome: two specialisations, not one per
    # value of the counter.
    cell_program("counter_branch_with_print", [
        SETUP + "w = np.linspace(0.5, 1.5, 4)\nx = np.ones(4)",
        "for step in range(45):\n"
        "    w = w * 0.99 + x * 0.01\n"
        "    if step % 10 == 0:\n"
        "        print(step, w.sum())\n"
        "    elif step > 41:\n"
        "        print('late', step)\n"
        "    elif (step - 20) // -6 == 2:\n"
        "        print('floored quotient', step)\n"
        "    elif (step - 3) % -7 == -2:\n"
        "        print('remainder of the divisor sign', step)\n"
        "w, step",
    ]),
    # Lists indexed by the counter (items read at a run-time index: negative
    # indices wrap, an int item indexes another list).
    cell_program("counter_indexed_lists", [
        SETUP + "hs = [np.full(3, float(i)) for i in range(12)]\n"
        "ix = [(i * 5) % 7 for i in range(30)]\n"
        "onehot = [np.eye(7)[i] for i in range(7)]\nacc = np.zeros(3)",
        "for t in range(11):\n"
        "    acc = acc + hs[t + 1] * hs[t] - hs[-1 - t] * 0.5\n"
        "    acc = acc + onehot[ix[t + 3]][:3] * float(ix[2 * t])\n"
        "acc, t",
    ]),
    # The counter runs past the list's end: CPython raises the IndexError at
    # exactly that iteration; an item of another type is a guard miss.
    cell_program("counter_index_error_and_item_types", [
        SETUP + "vals = [np.ones(2) * k for k in range(6)]\nacc = np.zeros(2)\n"
        "scale = [0.5, 1.5, 2, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0]",
        "for t in range(9):\n"
        "    acc = acc * scale[t] + vals[t]\n"
        "    print(t, acc)",
        "acc, t",
    ]),
    # `and`, `or` and `not` on counter conditions: decided by one guard on
    # the whole condition's outcome. Python evaluates `10 % t` only when
    # `t != 0`: the graph computes it anyway, and at t == 0 its divisor
    # assert sends that iteration to CPython.
    cell_program("counter_conditions_and_or_not", [
        SETUP + "w = np.linspace(0.5, 1.5, 4)\nlog = []",
        "for step in range(40):\n"
        "    w = w * 0.99 + 0.01\n"
        "    if step % 10 == 0 and step > 0:\n"
        "        print('every ten', step, w.sum())\n"
        "    if step < 2 or step >= 38:\n"
        "        print('ends', step)\n"
        "    if not step % 7:\n"
        "        log.append(step)\n"
        "    if not (step > 3 and step < 36) and step != 0 and 10 % step == 0:\n"
        "        print('divides ten', step)\n"
        "    late = step > 30 and step % 2 == 1\n"
        "w, step, late, log",
    ]),
    # Items set through the counter in a list and in a dict keyed by ints
    # (min-char-rnn keeps its time steps so): reads later in the same
    # iteration see the written values, also when a constant index (hs[7],
    # hs[-1]) and the counter's index name the same item on some iterations.
    cell_program("counter_indexed_item_writes", [
        SETUP + "hs = [np.zeros(3) for _ in range(8)]\nd = {0: np.ones(3), 'x': 1.5}\nacc = np.zeros(3)",
        "for t in range(7):\n"
        "    hs[t + 1] = hs[t] * 0.5 + float(t)\n"
        "    d[t] = hs[t + 1] + 1.0\n"
        "    acc = acc + d[t] - d[t // 2]\n"
        "    hs[-1] = acc * 2.0\n"
        "    acc = acc + hs[7] * 0.25 + hs[t] * 0.125\n"
        "    d['x'] = d['x'] + 1.0\n"
        "hs, d, acc, t",
    ]),
    # A list index past the end at iteration k: CPython raises the
    # IndexError there, every earlier iteration committed.
    cell_program("counter_item_write_out_of_range", [
        SETUP + "buf = [0.0] * 5\nacc = np.zeros(2)",
        "for k in range(8):\n"
        "    acc = acc + 1.0\n"
        "    buf[k] = float(acc.sum())\n"
        "    print(k, buf[k])",
        "acc, buf, k",
    ]),
    # A dict item set then read in the same iteration, and an append in an
    # iteration that then raises: nothing of that iteration's graph attempt
    # is visible, CPython runs it once.
    cell_program("dict_write_read_and_append_before_an_exception", [
        SETUP + "log = []\nd = {}\nw = np.ones(2)",
        "for i in range(14):\n"
        "    w = w * 1.5\n"
        "    d[i] = w\n"
        "    log.append(float(d[i].sum()))\n"
        "    if i == 11:\n"
        "        raise RuntimeError('stop at ' + str(i))",
        "log, d, w, i",
    ]),
    # Lists built in each iteration of a cell loop (min-char-rnn's
    # `hs, ps = [h], []`), appended to in an unrolled time loop, read back by
    # index, and bound to globals: the committed lists are one object each
    # (`last is hs`), holding the very arrays the names hold (`pair[0] is
    # pair[1]`, `hs[-1] is h`).
    cell_program("lists_built_and_appended_in_a_cell_loop", [
        SETUP + "W = rng.standard_normal((3, 3)) * 0.5\n"
        "xs = [rng.standard_normal(3) for _ in range(40)]\nh = np.zeros(3)\nlog = []",
        "for it in range(12):\n"
        "    hs, ps = [h], []\n"
        "    for t in range(3):\n"
        "        h = np.tanh(W @ hs[t] + xs[3 * it + t])\n"
        "        hs.append(h); ps.append(h * 0.5)\n"
        "    g = [np.zeros_like(W), np.zeros(3)]\n"
        "    for t in reversed(range(3)):\n"
        "        g[0] += np.outer(ps[t], hs[t])\n"
        "        g[1] += hs[t + 1]\n"
        "    W = W - 0.01 * g[0]\n"
        "    log.append(len(hs))\n"
        "    last = hs\n"
        "    pair = [h, h]\n"
        "print(len(log), last is hs, pair[0] is pair[1], hs[-1] is h, pair[0] is h)",
        "hs, ps, g, W, log, last, pair",
    ]),
    # A global bound to a new array and then updated in place in the same
    # iteration (`logits = ...; logits -= ...`, `p = np.exp(z); p /= ...`):
    # the committed object holds the updated contents. Printed first, the
    # array stays CPython's (the printed text must be the value before).
    cell_program("global_bound_then_updated_in_place", [
        SETUP + "Wq = rng.standard_normal((5, 4)) * 0.3\nxq = rng.standard_normal((6, 5))\nkeep = []",
        "for it in range(10):\n"
        "    logits = xq @ Wq\n"
        "    alias = logits\n"
        "    logits -= logits.max(axis=1, keepdims=True)\n"
        "    p = np.exp(logits)\n"
        "    p /= p.sum(axis=1, keepdims=True)\n"
        "    Wq -= 0.1 * (xq.T @ (p - 0.25))\n"
        "print(alias is logits, float(p.sum()))",
        "logits, p, Wq, alias",
        "for it in range(4):\n"
        "    shown = xq[:2] @ Wq\n"
        "    print(shown)\n"
        "    shown *= 2.0\n"
        "    keep.append(shown)\n"
        "shown, keep",
    ]),
    # A scalar times a transposed matrix, then a matrix product
    # (`W -= lr * h.T @ d`): NumPy holds `lr * h.T` in F order and calls BLAS
    # with a transpose flag; the graph computes it as (lr * h).T.
    cell_program("scalar_times_transpose_then_product", [
        SETUP + "H = rng.standard_normal((8, 6))\nD = rng.standard_normal((8, 3))\n"
        "Wt = rng.standard_normal((6, 3))\nlr = 0.05",
        "for it in range(10):\n"
        "    D = np.tanh(H @ Wt) - 0.5\n"
        "    Wt -= lr * H.T @ D\n"
        "    Wt = Wt - H.T * 0.01 @ D / 8\n"
        "Wt, D",
    ]),
    # One epoch of minibatch training written inline in a cell, run again
    # and again (the last minibatch is shorter: 50 = 3 * 16 + 2).
    cell_program("minibatch_epoch_run_again", [
        SETUP + "n_samples, batch_size, learning_rate = 50, 16, 0.1\n"
        "X = rng.standard_normal((n_samples, 6))\n"
        "Y = np.eye(3)[np.argmax(X @ rng.standard_normal((6, 3)), axis=1)]\n"
        "W1 = rng.standard_normal((6, 8)) * 0.1\nb1 = np.zeros(8)\n"
        "W2 = rng.standard_normal((8, 3)) * 0.1\nb2 = np.zeros(3)\nhistory = []",
    ] + ["epoch_loss = 0.0\n"
         "for start in range(0, n_samples, batch_size):\n"
         "    xb, yb = X[start:start + batch_size], Y[start:start + batch_size]\n"
         "    h = np.tanh(xb @ W1 + b1)\n"
         "    logits = h @ W2 + b2\n"
         "    logits -= logits.max(axis=1, keepdims=True)\n"
         "    p = np.exp(logits)\n"
         "    p /= p.sum(axis=1, keepdims=True)\n"
         "    epoch_loss += -np.log(p[yb > 0]).sum()\n"
         "    dlogits = (p - yb) / len(xb)\n"
         "    dh = (dlogits @ W2.T) * (1 - h * h)\n"
         "    W2 -= learning_rate * h.T @ dlogits\n"
         "    b2 -= learning_rate * dlogits.sum(axis=0)\n"
         "    W1 -= learning_rate * xb.T @ dh\n"
         "    b1 -= learning_rate * dh.sum(axis=0)\n"
         "history.append(epoch_loss / n_samples)"] * 6 + [
        "history, W1, b1, W2, b2, xb, yb, start, epoch_loss",
    ]),
    # A function the loop inlines branches on an int the loop carries through a
    # global (a text position wrapping around, as min-char-rnn's reset): the
    # branch is decided under a guard on its outcome, not by a graph per value.
    cell_program("inlined_branch_on_a_carried_int", [
        SETUP + "data = list(range(23))\n"
        "def step(w, pos, n):\n"
        "    if pos + 4 >= n:\n"
        "        pos = 0\n"
        "        w = w * 0.5\n"
        "    w = w + data[pos] * 0.25\n"
        "    return w, pos + 3",
        "w, pos = np.ones(4), 0\n"
        "for it in range(30):\n"
        "    w, pos = step(w, pos, len(data))\n"
        "print(pos, it)\n"
        "w",
    ]),
    # A window of token streams taken along the second axis at a moving
    # position and transposed (W2's `streams[:, p:p + n].T`): the names keep
    # NumPy views of the user's array (same base, strides), so a later cell
    # writing through them changes the array and the reverse.
    cell_program("escaping_window_views", [
        SETUP + "S = np.arange(240).reshape(4, 60)\npos = 0\nseen = np.zeros(5, np.int64)",
        "for it in range(14):\n"
        "    if pos + 6 > S.shape[1]:\n"
        "        pos = 0\n"
        "    win = S[:, pos:pos + 5].T\n"
        "    tgt = S[:, pos + 1:pos + 6].transpose(1, 0)\n"
        "    both = win\n"
        "    seen = seen + win.sum(axis=1) - tgt[0, 0]\n"
        "    pos += 5\n"
        "print(win.base is S.base, both is win, win.strides, win.flags['C_CONTIGUOUS'], tgt.shape)",
        "win[0, 0] = -7\nprint(S[0, pos - 5], tgt[0, 0])\nS[1, pos - 4] = 99\nprint(win[1, 1], tgt[0, 1])",
        "win, tgt, S, seen, pos",
    ]),
    # Gradient-norm clipping as W2 writes it: sum() of a generator over a
    # dict's arrays, np.sqrt, min() of a Python float and a NumPy float64
    # (the result's type depends on the data), max() with NaN.
    cell_program("grad_clip_folds", [
        SETUP + "grads = {'W': np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),\n"
        "         'b': np.full(4, 0.25, np.float32)}\n"
        "nan = float('nan')\nvals = [1.0, nan, -0.0, 0.0, 2.5, nan, 3.0, -1.0] * 3\nlog = []",
        "for step in range(20):\n"
        "    total = sum(float((g * g).sum()) for g in grads.values())\n"
        "    norm = np.sqrt(total)\n"
        "    scale = 0.5 * min(1.0, 4.0 / (norm + 1e-6))\n"
        "    for name, g in grads.items():\n"
        "        g *= np.float32(1.0 + scale)\n"
        "    v = vals[step]\n"
        "    hi, lo = max(v, total), max(total, v)\n"
        "    none = sum(x for x in ())\n"
        "log.append((total, norm, scale, hi, lo, none, type(scale).__name__))\n"
        "log",
        "grads",
    ]),
    # A row of an input array at a loop counter bound to a name (per-sample
    # SGD): NumPy's view, which the name holds after the loop and through
    # which a later write reaches the array (sources.hpp, computed_item).
    cell_program("row_view_at_a_counter", [
        SETUP + "X = rng.standard_normal((60, 4))\nw = np.zeros(4)",
        "for i in range(60):\n"
        "    x = X[i]\n"
        "    w = w * 0.9 + 0.1 * x\n"
        "print(x.base is X, np.shares_memory(x, X), x.flags.writeable, x.shape)",
        "x[0] = 99.0\nprint(X[59, 0], w)",
    ]),
    # Rows at a computed index, negative ones counted from the end, and a
    # counter that runs past the last row: CPython raises the IndexError at
    # that iteration, every earlier one committed.
    cell_program("row_view_at_computed_and_out_of_range_indices", [
        SETUP + "M = rng.standard_normal((7, 3))\nacc = np.zeros(3)\nseen = []",
        "for i in range(40):\n"
        "    v = M[i % 7 - 3]\n"
        "    acc = acc * 0.5 + v\n"
        "    seen.append(float(acc[0]))\n"
        "print(v.base is M, acc)",
        "for j in range(12):\n"
        "    r = M[j]\n"
        "    acc = acc + r\n",
        "print(j, r.base is M, acc, len(seen))",
    ]),
    # An in-place update through such a row is refused (the view overlaps the
    # array the graph also reads); the loop stays right whatever runs it.
    cell_program("row_view_updated_in_place", [
        SETUP + "M = np.zeros((5, 3))",
        "for i in range(40):\n"
        "    r = M[i % 5]\n"
        "    r += 1.0\n"
        "print(M, r.base is M)",
    ], graphs=False),
    # 0-d globals updated in place by a cell loop stay the same 0-d arrays
    # (issue 25: they became NumPy scalars), float64, float32 and int64.
    cell_program("zero_d_globals_in_place", [
        SETUP + "acc = np.zeros(())\nacc32 = np.zeros((), dtype=np.float32)\n"
        "count = np.array(0)\nxs = np.linspace(0, 1, 40)\nfirst = acc",
        "for i in range(40):\n"
        "    acc += xs[i]\n"
        "    acc32 += 0.25\n"
        "    count += 2\n"
        "acc, acc32, count, type(acc), acc is first",
        "for i in range(40):\n"
        "    acc *= 0.99\n"
        "print(repr(acc), repr(acc32), repr(count), acc is first)",
    ]),
]
