"""Cell programs for test_text_loops.py: training loops over text, as
min-char-rnn writes them. A list comprehension maps a str slice at a loop
counter through a dict (`[char_to_ix[ch] for ch in data[p:p + seq_length]]`),
the loop calls a function doing the forward and backward pass, updates the
parameters with Adagrad over zip(...), resets at the end of the text and
prints every few iterations. `loop_line` is the line (within the cell
`loop_cell`) of the loop whose iterations must run as graphs with the engine
on; None when the program only checks that the engine stays exact.
"""

from dataclasses import dataclass

CHAR_SETUP = """import numpy as np
rng = np.random.default_rng(3)
data = 'hello world, a recurrent net reads text one character at a time. ' * 2
chars = sorted(set(data))
vocab_size, hidden_size, seq_length, learning_rate = len(chars), 8, 6, 0.1
char_to_ix = {ch: i for i, ch in enumerate(chars)}
Wxh = rng.standard_normal((hidden_size, vocab_size)) * 0.1
Whh = rng.standard_normal((hidden_size, hidden_size)) * 0.1
Why = rng.standard_normal((vocab_size, hidden_size)) * 0.1
bh, by = np.zeros((hidden_size, 1)), np.zeros((vocab_size, 1))
mWxh, mWhh, mWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
mbh, mby = np.zeros_like(bh), np.zeros_like(by)
smooth_loss = -np.log(1.0 / vocab_size) * seq_length
n, p = 0, 0
hprev = np.zeros((hidden_size, 1))
"""

LOSS_FUN = """def lossFun(inputs, targets, hprev):
    xs, hs, ys, ps = {}, {}, {}, {}
    hs[-1] = np.copy(hprev)
    loss = 0
    for t in range(len(inputs)):
        xs[t] = np.zeros((vocab_size, 1))
        xs[t][inputs[t]] = 1
        hs[t] = np.tanh(np.dot(Wxh, xs[t]) + np.dot(Whh, hs[t - 1]) + bh)
        ys[t] = np.dot(Why, hs[t]) + by
        ps[t] = np.exp(ys[t]) / np.sum(np.exp(ys[t]))
        loss += -np.log(ps[t][targets[t], 0])
    dWxh, dWhh, dWhy = np.zeros_like(Wxh), np.zeros_like(Whh), np.zeros_like(Why)
    dbh, dby = np.zeros_like(bh), np.zeros_like(by)
    dhnext = np.zeros_like(hs[0])
    for t in reversed(range(len(inputs))):
        dy = np.copy(ps[t])
        dy[targets[t]] -= 1
        dWhy += np.dot(dy, hs[t].T)
        dby += dy
        dh = np.dot(Why.T, dy) + dhnext
        dhraw = (1 - hs[t] * hs[t]) * dh
        dbh += dhraw
        dWxh += np.dot(dhraw, xs[t].T)
        dWhh += np.dot(dhraw, hs[t - 1].T)
        dhnext = np.dot(Whh.T, dhraw)
    for dparam in [dWxh, dWhh, dWhy, dbh, dby]:
        np.clip(dparam, -5, 5, out=dparam)
    return loss, dWxh, dWhh, dWhy, dbh, dby, hs[len(inputs) - 1]
"""

# The timed loop of the W1 benchmark, with a print every 4 iterations; the
# text (134 characters) is used up every 22 iterations, so the reset branch
# is taken in the middle of the loop.
TRAIN = """for _ in range({iterations}):
    if p + seq_length + 1 >= len(data) or n == 0:
        hprev = np.zeros((hidden_size, 1))
        p = 0
    inputs = [char_to_ix[ch] for ch in data[p:p + seq_length]]
    targets = [char_to_ix[ch] for ch in data[p + 1:p + seq_length + 1]]
    loss, dWxh, dWhh, dWhy, dbh, dby, hprev = lossFun(inputs, targets, hprev)
    smooth_loss = smooth_loss * 0.999 + loss * 0.001
    if n % 4 == 0:
        print(n, p, smooth_loss)
    for param, dparam, mem in zip([Wxh, Whh, Why, bh, by],
                                  [dWxh, dWhh, dWhy, dbh, dby],
                                  [mWxh, mWhh, mWhy, mbh, mby]):
        mem += dparam * dparam
        param += -learning_rate * dparam / np.sqrt(mem + 1e-8)
    p += seq_length
    n += 1
"""

FINAL = "print(n, p, smooth_loss, inputs, targets)\nWxh, Whh, Why, bh, by, mWxh, hprev, loss"


@dataclass
class text_program:
    name: str
    cells: list
    loop_cell: int = None
    loop_line: int = None


PROGRAMS = [
    text_program("char_rnn_training_with_resets_and_prints",
                 [CHAR_SETUP, LOSS_FUN, TRAIN.format(iterations=50), FINAL,
                  # run again: the loop's graphs are reused
                  TRAIN.format(iterations=12), FINAL],
                 loop_cell=2, loop_line=1),
    # The dict changes between iterations: a key added (the dict_keys guard
    # misses, CPython runs that iteration, the loop compiles again) and a
    # value changed (the run reads the new value: no miss needed).
    text_program("dict_changed_between_iterations", [
        "import numpy as np\ntable = {ch: 2 * i for i, ch in enumerate('abcdefgh')}\n"
        "text = 'abcdefghhgfedcba' * 4\nq = 0\ntotal = 0\nseen = []",
        "for k in range(40):\n"
        "    if q + 5 > len(text):\n"
        "        q = 0\n"
        "    ixs = [table[ch] for ch in text[q:q + 4]]\n"
        "    total = total + ixs[0] * 3 + ixs[3]\n"
        "    seen.append(ixs)\n"
        "    if k == 17:\n"
        "        table['z'] = 99\n"
        "    if k == 25:\n"
        "        table['c'] = 1000\n"
        "    q += 3\n"
        "print(total, q, ixs)",
        "seen, table",
        # between cells: the values change, then a key is removed
        "table['a'] = -7\nfor k in range(10):\n"
        "    ixs = [table[ch] for ch in text[k:k + 3]]\n"
        "    total += ixs[0] + ixs[1] * 2 + ixs[2]\n"
        "total, ixs",
        "del table['z']\nfor k in range(10):\n"
        "    ixs = [table[ch] for ch in text[k + 1:k + 4]]\n"
        "    total += ixs[2]\n"
        "total, ixs",
    ], loop_cell=1, loop_line=1),
    # A character missing from the dict in iteration k: CPython raises the
    # KeyError there, every earlier iteration committed.
    text_program("missing_key_in_iteration_k", [
        "import numpy as np\ntable = {'a': 0, 'b': 1, 'c': 2}\n"
        "text = 'abcabcabcabcabcabcabcabcabcXabc'\nacc = np.zeros(3)\ni = 0",
        "for step in range(20):\n"
        "    ixs = [table[ch] for ch in text[i:i + 3]]\n"
        "    acc[ixs[0]] += 1.5 * step\n"
        "    acc = acc * 0.99\n"
        "    i += 2\n",
        "acc, i, step, ixs",
    ], loop_cell=1, loop_line=1),
    # The slice runs past the end of the text: shorter lists, as CPython
    # makes them (a guard miss, not a wrong length).
    text_program("slice_past_the_end", [
        "import numpy as np\ntable = {ch: ord(ch) for ch in 'xyz'}\ntext = 'xyzzyx' * 3\nj = 0\nsums = []",
        "for _ in range(9):\n"
        "    ixs = [table[ch] for ch in text[j:j + 4]]\n"
        "    sums.append(len(ixs) * 1000 + ixs[0] - ixs[-1])\n"
        "    j += 2\n"
        "sums, ixs",
    ], loop_cell=1, loop_line=1),
    # An item of the dict set earlier in the same iteration: the run could
    # not read it before the run, so that loop is refused; values beyond
    # int32 and bools are specialised on their values instead of relaxed.
    text_program("dict_set_before_the_read_and_wide_values", [
        "import numpy as np\ntable = {'a': 2**40, 'b': True, 'c': -3}\ntext = 'abcab' * 4\nm = 0\nlog = []",
        "for k in range(8):\n"
        "    table['c'] = table['c'] - k\n"
        "    log.append([table[ch] for ch in text[m:m + 3]])\n"
        "    m += 1\n"
        "log",
        "for k in range(8):\n"
        "    log.append([table[ch] for ch in text[k:k + 2]])\n"
        "log, table",
    ]),
    # The characters used other than as keys: refused, CPython runs the loop.
    text_program("characters_used_as_values", [
        "import numpy as np\ntable = {ch: i for i, ch in enumerate('abc')}\ntext = 'abcabcabcabc'\nr = 0\nout = []",
        "for _ in range(6):\n"
        "    out.append([(ch, table[ch]) for ch in text[r:r + 2]])\n"
        "    out.append([table[ch] for ch in text[r:r + 2] if ch != 'b'])\n"
        "    r += 1\n"
        "out",
    ]),
]
