"""Cell programs whose loop leaves on data: `if <test on array data or a
Python value computed from it>: ... break` (or `continue`), run by
test_cell_loops.py like cell_programs.PROGRAMS (engine off against on, every
output and the final globals bit for bit). `graphs` asks that the loop ran
iterations as graphs: the iteration's graph carries the exit (engine/README.md,
"Loops in cells")."""

from cell_programs import SETUP, cell_program

PROGRAMS = [
    cell_program("exit_break_on_a_float_late_with_else", [
        SETUP + "w = np.linspace(1, 2, 64)\nlosses = []",
        "for i in range(3000):\n"
        "    w = w - 0.01 * w\n"
        "    loss = float((w * w).sum())\n"
        "    losses.append(loss)\n"
        "    if loss < 1e-1:\n"
        "        print('converged at', i, loss)\n"
        "        converged = True\n"
        "        break\n"
        "    last = loss\n"
        "else:\n"
        "    print('no break')\n"
        "print(i, last, converged, len(losses))",
        "w.sum(), losses[-3:]",
    ]),
    cell_program("exit_break_on_a_0d_array_never_taken", [
        SETUP + "W = rng.standard_normal((8, 8)) * 0.1\nx = np.ones(8)",
        "for step in range(40):\n"
        "    x = np.tanh(W @ x) + 0.5\n"
        "    if (x * x).sum() > 1e6:\n"
        "        break\n"
        "    x = x * 0.9\n"
        "else:\n"
        "    print('else ran', step)\n"
        "x",
    ]),
    cell_program("exit_break_on_nan", [
        SETUP + "w = np.linspace(1, 2, 8)\nbad = np.zeros(200)\nbad[150] = np.nan\nhist = []",
        "for i in range(200):\n"
        "    w = w * 0.99 + bad[i]\n"
        "    loss = float(w.sum())\n"
        "    hist.append(loss)\n"
        "    if np.isnan(loss):\n"
        "        print('nan at', i)\n"
        "        break\n"
        "    w = w + 0.01\n"
        "    print(loss, end=' ')\n"
        "print(i, len(hist))",
        "w, hist[-2:]",
    ]),
    cell_program("exit_break_on_isinf_or_isnan", [
        SETUP + "w = np.array([1.0, 2.0, 3.0])\nbad = np.zeros(100)\nbad[70] = np.inf",
        "for i in range(100):\n"
        "    w = w * 0.5 + bad[i]\n"
        "    ok = np.isfinite(w)\n"
        "    if np.isinf(w).any() or np.isnan(w.sum()):\n"
        "        print('diverged', i, ok)\n"
        "        break\n",
        "i, w, ok",
    ]),
    cell_program("exit_continue_on_data", [
        SETUP + "w = np.linspace(-1, 1, 16)\nacc = np.zeros(16)\nn = 0\nseen = []",
        "for i in range(80):\n"
        "    w = np.concatenate([w[1:], w[:1]]) * 1.01\n"
        "    seen.append(float(w[0]))\n"
        "    if w[0] < 0:\n"
        "        continue\n"
        "    acc = acc + w\n"
        "    n = n + 1\n"
        "    print(i, float(acc.sum()))\n"
        "print(n, i)",
        "acc, w",
    ]),
    cell_program("exit_break_in_the_first_iteration", [
        SETUP + "w = np.ones(4)",
        "for i in range(50):\n"
        "    w = w * 0.5\n"
        "    if w.sum() < 3:\n"
        "        break\n"
        "else:\n"
        "    print('else ran')\n"
        "print(i, w)",
    ], graphs=False),
    cell_program("exit_break_in_a_while_loop", [
        SETUP + "w = np.ones(4)\nk = 0\nt = -1",
        "while k < 1000:\n"
        "    k += 1\n"
        "    w = w * 0.97\n"
        "    if float(w.sum()) < 1.0:\n"
        "        break\n"
        "    t = k * 2\n"
        "else:\n"
        "    print('while else')\n"
        "print(k, w, t)",
    ]),
    cell_program("exit_effects_around_the_break", [
        SETUP + "w = np.ones(4)\nlog = []",
        "for i in range(300):\n"
        "    w = w * 0.95\n"
        "    log.append(float(w.sum()))\n"
        "    print('it', i, w.sum())\n"
        "    if w.sum() < 0.5:\n"
        "        log.append('done')\n"
        "        print('break at', i)\n"
        "        break\n"
        "    log.append(i)\n"
        "    print('after', i)\n"
        "    tail = w * 2",
        "log[-4:], tail, w",
    ]),
    cell_program("exit_two_exits_one_nested", [
        SETUP + "w = np.ones(4)\nx = np.zeros(4)",
        "for i in range(300):\n"
        "    w = w * 0.95\n"
        "    if i > 3:\n"
        "        if w[0] < 0.2:\n"
        "            break\n"
        "    x = x + w\n"
        "    if x.sum() > 20:\n"
        "        continue\n"
        "    print(i, x.sum())\n"
        "print(i, x, w)",
    ]),
    cell_program("exit_exception_after_the_test", [
        SETUP + "w = np.ones(4)",
        "for i in range(300):\n"
        "    w = w * 0.9\n"
        "    if w.sum() < 0.01:\n"
        "        break\n"
        "    if i == 20:\n"
        "        raise ValueError('boom at ' + str(i))\n"
        "    print(i)",
        "i, w",
    ]),
]
