"""Cell programs for chunks of `while` loops (test_while_chunks.py;
engine/while_chunks.hpp).

Same contract as chunk_programs.py: each program runs in one kernel with the
engine off, on at threshold 0 and on at the default settings; every output
and the final globals are compared bit for bit, and `chunks` says whether
some loop must run chunks at threshold 0.
"""

from chunk_programs import SETUP, chunk_program

PROGRAMS = [
    chunk_program("counter_loop", [
        SETUP + "w = np.linspace(-1.0, 1.0, 8)\nstep = 0\nn_steps = 300\nlr = 0.01",
        # A Python int counter carried by the chunks, the test on it and a
        # global the body does not bind.
        "while step < n_steps:\n"
        "    w = w - lr * (2.0 * w - 1.0)\n"
        "    step += 1\n"
        "print(step, w)",
        # Run again with another bound: the same region, chunks at once.
        "n_steps = 517\n"
        "while step < n_steps:\n"
        "    w = w - lr * (2.0 * w - 1.0)\n"
        "    step += 1\n"
        "print(step, w)",
    ]),
    chunk_program("convergence_on_a_float_from_data", [
        SETUP + "x = np.linspace(0.0, 1.0, 16)\ntarget = np.full(16, 0.25)\nloss = 1.0\nit = 0",
        # The loss falls under the bound at some iteration inside a chunk:
        # the chunk stops there, CPython evaluates the test once more.
        "while loss > 1e-6 and it < 1000:\n"
        "    x = x - 0.05 * (x - target)\n"
        "    loss = float(np.mean((x - target) ** 2))\n"
        "    it += 1\n"
        "print(it, loss, x[:3])",
        # The bound on the counter ends it this time.
        "x = np.linspace(0.0, 1.0, 16)\nloss = 1.0\nit = 0\n"
        "while loss > 1e-6 and it < 37:\n"
        "    x = x - 0.05 * (x - target)\n"
        "    loss = float(np.mean((x - target) ** 2))\n"
        "    it += 1\n"
        "print(it, loss, x[:3])",
    ]),
    chunk_program("while_not_converged", [
        SETUP + "v = np.arange(6, dtype=np.float64)\nconverged = False\nrounds = 0",
        # A Python bool computed in the body.
        "while not converged:\n"
        "    v = v * 0.9\n"
        "    err = np.abs(v).max()\n"
        "    converged = bool(err < 1e-3)\n"
        "    rounds += 1\n"
        "print(rounds, err, converged, type(converged), v)",
        # A NumPy bool.
        "u = np.arange(5, dtype=np.float64)\ndone = False\n"
        "while not done:\n"
        "    u = u * 0.95 + 0.01\n"
        "    done = np.abs(u - 0.2).max() < 1e-4\n"
        "print(done, type(done), u)",
    ]),
    chunk_program("else_clause", [
        SETUP + "k = 0\nacc = np.zeros(3)",
        "while k < 50:\n"
        "    acc = acc * 0.5 + 1.0\n"
        "    k += 1\n"
        "else:\n"
        "    print('else', k, acc)\n"
        "print(k)",
        # The test false at once: no iteration, the `else:` still runs.
        "while k < 50:\n"
        "    acc = acc * 0.5 + 1.0\n"
        "    k += 1\n"
        "else:\n"
        "    print('else again', k, acc)",
    ]),
    chunk_program("assert_fails_inside_a_chunk", [
        SETUP + "a = np.zeros(50)\nn = 0",
        # Iteration 119 fails the assert: 0..118 committed, 119 raised by CPython.
        "while n < 400:\n"
        "    a += 0.5\n"
        "    assert a[0] < 60.0, 'too big'\n"
        "    n += 1\n",
        "print(n, a[0], a.sum())",
    ]),
    chunk_program("loop_in_a_function", [
        SETUP + "def descend(w, n_steps):\n"
        "    step = 0\n"
        "    loss = 1.0\n"
        "    while step < n_steps and loss > 1e-12:\n"
        "        w = w - 0.1 * (w - 0.5)\n"
        "        loss = float(((w - 0.5) ** 2).sum())\n"
        "        step += 1\n"
        "    else:\n"
        "        print('done', step)\n"
        "    return w, step, loss\n",
        "r1 = descend(np.linspace(0.0, 1.0, 5), 400)\nprint(r1)",
        "r2 = descend(np.linspace(0.0, 2.0, 5), 90)\nprint(r2)",
    ]),
    chunk_program("test_reads_a_list_length", [
        SETUP + "xs = [0.5 * i for i in range(90)]\ni = 0\ntotal = np.zeros(2)",
        "while i < len(xs):\n"
        "    total = total * 0.5 + 1.0\n"
        "    i += 1\n"
        "print(i, total)",
    ]),
    chunk_program("appends_and_prints", [
        SETUP + "h = np.ones(3)\nt = 0\nlog = []",
        # Per-iteration effects replayed for the trips that ran only.
        "while t < 45:\n"
        "    h = h * 0.5 + 0.25\n"
        "    log.append(float(h[0]))\n"
        "    print(t, h[1])\n"
        "    t += 1\n"
        "print(len(log), log[-3:], h)",
    ]),
    chunk_program("nan_ends_the_loop_inside_a_chunk", [
        SETUP + "v = np.ones(3)\nn = 0",
        # NaN compares false: the test ends the loop at the trip after it.
        "while v[0] > 1e-3 and n < 200:\n"
        "    v = v * 0.5\n"
        "    if n == 30:\n"
        "        v = v * np.nan\n"
        "    n += 1\n"
        "print(n, v)",
    ]),
    chunk_program("counter_leaves_the_relaxed_int_range", [
        SETUP + "n = 2**31 - 40\nv = np.ones(2)",
        # The chunk crossing 2**31 fails and is replayed one by one.
        "while n < 2**31 + 40:\n"
        "    v = v + 1.0\n"
        "    n += 1\n"
        "print(n, v)",
    ]),
    chunk_program("bound_changes_type_between_loops", [
        SETUP + "lim = 50\nv = np.ones(2)\nn = 0",
        "while n < lim:\n"
        "    v = v + 1.0\n"
        "    n += 1\n"
        "lim = 80.5\n"
        "while n < lim:\n"
        "    v = v + 1.0\n"
        "    n += 1\n"
        "print(n, v)",
    ]),
    chunk_program("break_keeps_per_iteration_graphs", [
        SETUP + "k = 0\nacc = np.zeros(3)",
        "while k < 100:\n"
        "    acc = acc * 0.5 + 1.0\n"
        "    k += 1\n"
        "    if k == 60:\n"
        "        break\n"
        "else:\n"
        "    print('else')\n"
        "print(k, acc)",
    ], chunks=False),
    chunk_program("names_trading_arrays_keep_per_iteration_graphs", [
        SETUP + "a = np.ones(3)\nb = np.zeros(3)\nn = 0",
        "while n < 50:\n"
        "    a, b = b, a\n"
        "    a += 1.0\n"
        "    n += 1\n"
        "print(n, a, b)",
    ], chunks=False),
    chunk_program("numpy_functions_and_reductions_in_the_test", [
        SETUP + "x = np.linspace(1.0, 4.0, 6)\nn = 0",
        "while np.abs(x - 2.0).max() > 1e-9 and x.size > 0:\n"
        "    x = x - 0.05 * (x - 2.0)\n"
        "    n += 1\n"
        "print(n, x)",
        "e = np.full(3, 5.0)\n"
        "while (e * 2.0).sum() > 1.0:\n"
        "    e = e * 0.8\n"
        "print(e)",
    ]),
    chunk_program("test_calls_a_method_of_a_python_object", [
        SETUP + "class Budget:\n"
        "    def __init__(self):\n"
        "        self.calls = 0\n"
        "    def more(self):\n"
        "        self.calls += 1\n"
        "        return self.calls < 50\n"
        "budget = Budget()\nv = np.ones(2)\nn = 0",
        "while budget.more() and n < 60:\n"
        "    v = v + 1.0\n"
        "    n += 1\n"
        "print(n, v, budget.calls)",
        "del budget  # (its repr holds its address)",
    ], chunks=False),
    chunk_program("test_calls_a_python_function", [
        SETUP + "def limit():\n    return 80\n",
        "q = 0\nz = np.zeros(2)\n"
        "while q < limit():\n"
        "    z = z + 1.0\n"
        "    q += 1\n"
        "print(q, z)",
    ], chunks=False),
]
