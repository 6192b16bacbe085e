"""Cell programs for loops run in chunks whose body updates arrays reached
through the items of a list in place (engine/converter/chunk_items.cpp; run by
test_loop_chunks.py): the training loop that keeps its parameters in a list.
As in chunk_programs.py, every cell's output and the final globals are
compared with the engine off, bit for bit; `chunks` says whether some loop
must run chunks at threshold 0. The programs print identities (`params[0] is
W1`), so an array replaced instead of updated shows as a difference.
"""

from chunk_programs import SETUP, chunk_program

# A small two-layer MLP on two noisy blobs, its parameters in a list.
MLP_DATA = (
    SETUP +
    "rng = np.random.default_rng(3)\n"
    "X = np.concatenate([rng.standard_normal((20, 2)) + 1.0, rng.standard_normal((20, 2)) - 1.0])\n"
    "Y = np.repeat(np.eye(2), 20, axis=0)\n"
    "def init_mlp():\n"
    "    r = np.random.default_rng(1)\n"
    "    return [r.standard_normal((2, 8)), np.zeros(8), r.standard_normal((8, 2)) * 0.3,\n"
    "            np.zeros(2)]\n"
    "params = init_mlp()\n"
    "first = list(params)\n"
    "losses = []\n")

TRAIN_STEP = (
    "def forward(params, X):\n"
    "    W1, b1, W2, b2 = params\n"
    "    h = np.maximum(X @ W1 + b1, 0.0)\n"
    "    logits = h @ W2 + b2\n"
    "    logits = logits - logits.max(axis=1, keepdims=True)\n"
    "    p = np.exp(logits)\n"
    "    return h, p / p.sum(axis=1, keepdims=True)\n"
    "def train_step(params, X, Y, lr):\n"
    "    W1, b1, W2, b2 = params\n"
    "    h, p = forward(params, X)\n"
    "    n = X.shape[0]\n"
    "    loss = -(np.log(p) * Y).sum() / n\n"
    "    d = (p - Y) / n\n"
    "    dW2, db2 = h.T @ d, d.sum(axis=0)\n"
    "    dh = np.where(h > 0, d @ W2.T, 0.0)\n"
    "    dW1, db1 = X.T @ dh, dh.sum(axis=0)\n"
    "    W1 -= lr * dW1; b1 -= lr * db1; W2 -= lr * dW2; b2 -= lr * db2\n"
    "    return loss\n")

SAME_OBJECTS = "print(all(a is b for a, b in zip(params, first)), len(params))\n"

# The training step written out in the cell body.
CELL_BODY_STEP = (
    "    W1, b1, W2, b2 = params\n"
    "    h = np.maximum(X @ W1 + b1, 0.0)\n"
    "    logits = h @ W2 + b2\n"
    "    logits = logits - logits.max(axis=1, keepdims=True)\n"
    "    p = np.exp(logits)\n"
    "    p = p / p.sum(axis=1, keepdims=True)\n"
    "    loss = -(np.log(p) * Y).sum() / len(X)\n"
    "    d = (p - Y) / len(X)\n"
    "    dW2, db2 = h.T @ d, d.sum(axis=0)\n"
    "    dh = np.where(h > 0, d @ W2.T, 0.0)\n"
    "    dW1, db1 = X.T @ dh, dh.sum(axis=0)\n")

# Names bound to two list items, one updated in place through its name.
NAMES_ON_ITEMS = ("for i in range(60):\n"
                  "    w, v = params\n"
                  "    w -= 0.01 * v\n"
                  "    v *= 0.999\n"
                  "    s = s + 0.5\n"
                  "print(s, W, c, w is W, v is c)\n" + SAME_OBJECTS)

PROGRAMS = [
    chunk_program("params_list_mlp_train_step", [
        MLP_DATA + TRAIN_STEP,
        "for epoch in range(120):\n"
        "    losses.append(train_step(params, X, Y, 0.5))\n"
        "print(epoch, losses[-1], len(losses), params[0][0], params[3])\n" + SAME_OBJECTS,
        # Run again: the same region, chunks from its second iteration.
        "for epoch in range(40):\n"
        "    losses.append(train_step(params, X, Y, 0.25))\n"
        "print(epoch, losses[-3:], params[1])\n" + SAME_OBJECTS,
    ]),
    chunk_program("params_list_update_in_the_cell_body", [
        MLP_DATA + "lr = 0.5\n",
        "for epoch in range(120):\n" + CELL_BODY_STEP +
        "    W1 -= lr * dW1\n"
        "    b1 -= lr * db1\n"
        "    W2 -= lr * dW2\n"
        "    b2 -= lr * db2\n"
        "    losses.append(loss)\n"
        "print(epoch, losses[-1], len(losses), W1 is params[0], b2 is params[3], p.shape)\n" +
        SAME_OBJECTS,
    ]),
    chunk_program("cell_body_name_bound_to_the_item", [
        SETUP + "W = np.linspace(0.0, 1.0, 6)\nc = np.ones(6)\nparams = [W, c]\nfirst = list(params)\n"
        "s = 0.0\n",
        # `w` and `v` are params[0] and params[1] before every chunk (`same`
        # guards), never arrays of their own.
        NAMES_ON_ITEMS,
        # `w` rebound to a copy between runs: the loop binds it to the item
        # again (its first iterations run one by one, before any chunk).
        "w = W.copy() + 1.0\n" + NAMES_ON_ITEMS,
    ]),
    chunk_program("cell_body_name_bound_to_an_item_only_read", [
        SETUP + "W = np.linspace(0.0, 1.0, 6)\nc = np.ones(6)\nparams = [W, c]\nfirst = list(params)\n"
        "s = 0.0\n",
        # `v` is bound to params[1], which nothing updates: carried by
        # source as well (unchanged), `v` guarded to be it.
        "for i in range(60):\n"
        "    w, v = params\n"
        "    w -= 0.01 * v\n"
        "    s = s + float(v[0])\n"
        "print(s, W, c, w is W, v is c)\n" + SAME_OBJECTS,
    ]),
    chunk_program("params_list_zip_update_in_a_function", [
        MLP_DATA,
        "def sgd(params, grads, lr):\n"
        "    for w, g in zip(params, grads):\n"
        "        w -= lr * g\n"
        "def zip_step(params, lr):\n"
        "    W1, b1, W2, b2 = params\n"
        "    h = np.maximum(X @ W1 + b1, 0.0)\n"
        "    p = np.exp(h @ W2 + b2)\n"
        "    p = p / p.sum(axis=1, keepdims=True)\n"
        "    d = (p - Y) / len(X)\n"
        "    dh = np.where(h > 0, d @ W2.T, 0.0)\n"
        "    sgd(params, [X.T @ dh, dh.sum(axis=0), h.T @ d, d.sum(axis=0)], lr)\n"
        "    return -(np.log(p) * Y).sum() / len(X)\n"
        "for epoch in range(120):\n"
        "    losses.append(zip_step(params, 0.5))\n"
        "print(epoch, losses[-1], params[2][:, 0])\n" + SAME_OBJECTS,
    ]),
    chunk_program("params_list_zip_update_in_the_cell_body", [
        MLP_DATA + "lr = 0.5\n",
        # `grads`, a list the body builds and binds, is no value a chunk
        # carries: per-iteration graphs.
        "for epoch in range(60):\n" + CELL_BODY_STEP +
        "    grads = [dW1, db1, dW2, db2]\n"
        "    for w, g in zip(params, grads):\n"
        "        w -= lr * g\n"
        "    losses.append(loss)\n"
        "print(epoch, losses[-1], w is params[3], g is grads[3])\n" + SAME_OBJECTS,
    ], chunks=False),
    chunk_program("params_list_in_a_function_loop", [
        MLP_DATA + TRAIN_STEP,
        # try/finally keeps the function in CPython: its loop is entered in
        # the running frame, the list a loop local.
        "def train(ps, n):\n"
        "    out = []\n"
        "    try:\n"
        "        for e in range(n):\n"
        "            out.append(train_step(ps, X, Y, 0.5))\n"
        "    finally:\n"
        "        pass\n"
        "    return out\n"
        "losses = train(params, 90)\n"
        "print(losses[-1], len(losses), params[2][0])\n" + SAME_OBJECTS,
    ]),
    chunk_program("params_list_assert_fails_mid_loop", [
        MLP_DATA + TRAIN_STEP,
        # The assert fails at some iteration k inside a chunk: nothing of
        # the chunk is committed, iterations before k replay, CPython raises
        # at k with the parameters of k - 1 updates (plus k's own).
        "state = [np.zeros(1)]\n"
        "def checked_step(params, X, Y, lr):\n"
        "    loss = train_step(params, X, Y, lr)\n"
        "    ticks, = state\n"
        "    ticks += 1.0\n"
        "    assert ticks[0] < 137.0, 'too many steps'\n"
        "    return loss\n"
        "for epoch in range(400):\n"
        "    losses.append(checked_step(params, X, Y, 0.5))\n",
        "print(epoch, len(losses), losses[-1], params[1], state)\n" + SAME_OBJECTS,
    ]),
    chunk_program("params_tuple_and_a_loop_over_a_list_holding_an_item", [
        SETUP + "W = np.linspace(0.0, 1.0, 5)\nc = np.ones(5)\nparams = [W, c]\nfirst = list(params)\n"
        "xs = [np.full(5, 0.5) for _ in range(50)] + [W] * 3 + [np.full(5, 0.25) for _ in range(90)]\n"
        "tot = 0.0\n",
        # The items the chunks stack are copies: the chunks holding W (the
        # item updated in place) are kept out, those iterations run as
        # CPython does, reading W's new contents.
        "for g in xs:\n"
        "    w, v = params\n"
        "    w -= 0.01 * g\n"
        "    v *= 0.999\n"
        "    tot = tot + 1.0\n"
        "print(W, c, tot, w is W)\n" + SAME_OBJECTS,
        # A tuple's items, updated in an inlined function.
        "tp = (np.zeros(3), np.ones(3))\n"
        "def upd(p, k):\n"
        "    a, b = p\n"
        "    a += b * k\n"
        "    b *= 1.01\n"
        "for i in range(100):\n"
        "    upd(tp, 0.5)\n"
        "print(tp)",
    ]),
    chunk_program("params_list_holding_one_array_twice", [
        SETUP + "W = np.linspace(0.0, 1.0, 6)\nparams = [W, W]\nfirst = list(params)\n",
        # The two items are one array: every update reads the other's new
        # contents, as NumPy does. Never in chunks.
        "def step(ps):\n"
        "    a, b = ps\n"
        "    a -= 0.01 * b\n"
        "    b *= 0.999\n"
        "for i in range(80):\n"
        "    step(params)\n"
        "print(W, params[0] is params[1])\n" + SAME_OBJECTS,
    ], chunks=False),
    chunk_program("params_list_item_also_a_global_name", [
        SETUP + "W = np.linspace(0.0, 1.0, 6)\nc = np.ones(6)\nparams = [W, c]\nfirst = list(params)\n",
        # The item updated in place is the global W the body reads too: the
        # graph would read W once. Never in chunks.
        "def step(ps):\n"
        "    a, b = ps\n"
        "    a -= 0.01 * (W + b)\n"
        "for i in range(80):\n"
        "    step(params)\n"
        "print(W, c)\n" + SAME_OBJECTS,
    ], chunks=False),
]

# A `same` guard that misses: its own test (test_loop_chunks.py) counts it.
SAME_GUARD_MISS = chunk_program("cell_body_name_left_on_another_array_at_a_counter_if", [
    SETUP + "W = np.linspace(0.0, 1.0, 6)\nc = np.ones(6)\nparams = [W, c]\nfirst = list(params)\n"
    "s = 0.0\n",
    # Every 20th iteration leaves `w` on an array of its own, of the
    # item's shape: the chunk graph (of the other side) entered next finds
    # `w` is not params[0]: its `same` guard misses (the loop row's
    # `chunk_guard_misses`, test_loop_chunks.py).
    "for i in range(100):\n"
    "    w, v = params\n"
    "    w -= 0.01 * v\n"
    "    v *= 0.999\n"
    "    s = s + 0.5\n"
    "    if i % 20 == 19:\n"
    "        w = w * 2.0\n"
    "print(s, W, c, w is W, v is c, w)\n" + SAME_OBJECTS,
])
