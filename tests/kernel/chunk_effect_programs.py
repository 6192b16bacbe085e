"""Cell programs for loops whose iterations append and print, run in chunks
(engine/converter/chunk_effects.cpp; test_chunk_effects.py). As in
chunk_programs.py: every cell's output and the final globals are compared
with the engine off, bit for bit; `chunks` says whether some loop must run
chunks at threshold 0. The programs print what CPython's objects are (types,
dtypes, identities, ownership), so a difference in kind shows as a
difference in output.
"""

from chunk_programs import SETUP, chunk_program

IDENTITY = ("def ids(xs):\n"
            "    return len({id(x) for x in xs}) == len(xs)\n")

PROGRAMS = [
    chunk_program("append_python_float", [
        SETUP + "w = np.linspace(-1.0, 1.0, 64)\nlosses = []",
        "for step in range(300):\n"
        "    w = w * 0.99 + 0.001\n"
        "    loss = float((w * w).mean())\n"
        "    losses.append(loss)\n",
        "print(len(losses), losses[:3], losses[-1], type(losses[-1]).__name__, losses[-1] is loss)",
    ]),
    chunk_program("append_numpy_scalars", [
        SETUP + "w = np.linspace(-1.0, 1.0, 32)\nw32 = np.ones(16, np.float32)\n"
                "hist, hist2, hist32 = [], [], []",
        "for step in range(250):\n"
        "    w = w * 0.98 + 0.01\n"
        "    w32 = w32 * np.float32(0.97)\n"
        "    loss = ((w - 0.5) ** 2).mean()\n"
        "    hist.append(loss)\n"
        "    hist2.append(loss * 2.0)\n"
        "    hist32.append(w32.sum())\n",
        "print(type(hist[0]).__name__, type(hist2[5]).__name__, type(hist32[-1]).__name__,\n"
        "      hist32[-1].dtype, hist[-1] is loss, hist[:2], hist2[-2:], hist32[::50])",
    ]),
    chunk_program("append_arrays_distinct_objects", [
        SETUP + IDENTITY + "h = np.full((3, 4), 0.5)\nhs, snaps = [], []",
        "for t in range(200):\n"
        "    h = np.tanh(h * 0.9 + 0.1)\n"
        "    hs.append(h)\n"
        "    snaps.append(h[0] * 2.0)\n",
        "print(len(hs), ids(hs), ids(snaps), hs[-1] is h, hs[0] is hs[1],\n"
        "      hs[3].base is None, hs[3].flags['OWNDATA'], hs[3].flags['C_CONTIGUOUS'],\n"
        "      snaps[7].shape, hs[0][0], hs[-1][-1], snaps[-1])",
    ]),
    chunk_program("print_every_iteration", [
        SETUP + "w = np.linspace(0.0, 1.0, 8)",
        "for step in range(120):\n"
        "    w = w * 0.5 + 0.25\n"
        "    loss = float(w.sum())\n"
        "    print(step, loss, w[:2])\n"
        "    print('loss', loss, sep=': ', end=' |\\n')\n",
    ]),
    chunk_program("print_f_strings_every_iteration", [
        SETUP + "w = np.linspace(0.0, 1.0, 8)\nlr = 0.1",
        "for step in range(150):\n"
        "    w = w - lr * (w - 0.3)\n"
        "    loss = float(((w - 0.3) ** 2).mean())\n"
        "    m = w.max()\n"
        "    print(f'step {step:4d}: loss={loss:.6f} max={m:.3e} raw={loss} {m!r} {step}')\n",
    ]),
    chunk_program("append_print_and_a_counter_if", [
        SETUP + "w = np.linspace(-2.0, 2.0, 16)\nlosses = []\nacc = []",
        "for step in range(400):\n"
        "    w = w - 0.01 * (w - 1.0)\n"
        "    loss = float(((w - 1.0) ** 2).mean())\n"
        "    losses.append(loss)\n"
        "    acc.append(w.mean())\n"
        "    print(step, loss)\n"
        "    if step % 10 == 0:\n"
        "        print('epoch', step // 10, 'loss', loss, 'n', step + 1)\n",
        "print(len(losses), len(acc), losses[-1] is loss, type(acc[0]).__name__, acc[-3:])",
    ]),
    chunk_program("exception_in_iteration_k", [
        SETUP + "a = np.zeros(16)\nvals = []\nvals_after = []",
        # Iteration 149 appends, then fails the assert: CPython raises there,
        # with the effects of 0..148 and the first append of 149 made.
        "for i in range(400):\n"
        "    a = a + 1.0\n"
        "    vals.append(float(a[0]))\n"
        "    print(i, a[0])\n"
        "    assert a[0] < 150.0, 'too big'\n"
        "    vals_after.append(a[0])\n",
        "print(i, len(vals), len(vals_after), vals[-1], vals_after[-1], a[0])",
    ]),
    chunk_program("appended_list_also_read_in_the_body", [
        SETUP + "w = np.zeros(4)\nseen = [0.0]",
        # The body reads the list it appends to: refused for chunks (the
        # graph would read the list once per chunk), run iteration by
        # iteration, results CPython's.
        "for i in range(120):\n"
        "    w = w + 1.0\n"
        "    prev = seen[-1]\n"
        "    seen.append(prev * 0.5 + float(w[0]))\n",
        "print(len(seen), seen[-3:])",
    ], chunks=False),
]
