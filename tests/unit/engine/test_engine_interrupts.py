"""A SIGINT that arrives while the engine runs Python (its own: reading a
function's source, loading its tables; or the user's: a dict key's
__eq__, a repr, np.geterr) is the user's: it surfaces as one KeyboardInterrupt
at the call (or the loop's marker, or the API call that ran it), never
swallowed.

Each program sends a real SIGINT from inside Python code that only the engine
runs (a function only it calls, or the Nth call of user code made by the
engine and not by CPython), so the signal lands in the engine's work at a
known point. Every SIGINT sent must surface exactly once, and the results
are CPython's without the interrupted call."""
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
from engine_harness import run_program  # noqa: E402

PROGRAM = """
    import inspect, json, os, signal
    import numpy as np
    import specula

    real_getsourcelines = inspect.getsourcelines
    armed = {"who": {WHO}}  # the first read of that function only
    sent = []

    def interrupting(obj):
        # Which engine step reads the source: the branch tracer's begin() and
        # trace() run with this module's frame below them, the converter too;
        # the name of the function read tells them apart well enough here.
        if armed["who"] is not None and getattr(obj, "co_name", None) == armed["who"]:
            armed["who"] = None
            sent.append(obj.co_name)
            os.kill(os.getpid(), signal.SIGINT)  # raises here, as from Jupyter
        return real_getsourcelines(obj)

    inspect.getsourcelines = interrupting

    def helper(x, k):
        if k % 2:
            return x - 1.0
        return x + 1.0

    def f(x, k):
        if k > 0:
            return helper(x * 2.0, k)
        return x

    raised = []
    x = np.ones(3)
    for i in range(12):
        try:
            x = f(x, i)
        except KeyboardInterrupt:
            raised.append(i)
    print(json.dumps({"sent": sent, "raised": raised, "x": x.tolist()}))
    print("REPORT" + json.dumps(specula.report()))
"""


@pytest.mark.parametrize("who", ["f", "helper"])
def test_a_sigint_in_the_engines_source_read_surfaces_once(tmp_path, who):
    # Threshold 2: cold calls, then profiling calls (traced: begin() reads
    # f's source, trace() helper's), then the compile (the converter reads
    # both). The SIGINT lands in the first read of `who`.
    proc = run_program(tmp_path, PROGRAM.replace("{WHO}", repr(who)), threshold="2")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("REPORT")[0])
    assert out["sent"] == [who], out
    assert len(out["raised"]) == 1, f"{len(out['sent'])} SIGINT sent, raised at {out['raised']}"
    # The interrupted call left no effect and the later ones ran: x is that of
    # the calls that returned, in CPython's order.
    x = 1.0
    for i in range(12):
        if i in out["raised"]:
            continue
        x = x * 2.0 + (-1.0 if i % 2 else 1.0) if i > 0 else x
    assert out["x"] == [x] * 3, out


def test_without_the_engine_no_source_is_read(tmp_path):
    # The control: engine off, nothing calls inspect, no SIGINT is sent.
    proc = run_program(tmp_path, PROGRAM.replace("{WHO}", "'f'"), engine="off")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("REPORT")[0])
    assert out["sent"] == [] and out["raised"] == [], out


# The engine's first call after NumPy's import loads its tables: importing
# modules runs the import machinery's Python, and a finder the user put on
# sys.meta_path. Here `math` is imported again then, and the finder sends the
# SIGINT on its first search for it (engine off, nothing imports it).
LOAD_PROGRAM = """
    import json, os, signal, sys
    import numpy as np
    import specula

    sent = []

    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name == "math" and not sent:
                sent.append(name)
                os.kill(os.getpid(), signal.SIGINT)  # raises here, as from Jupyter
            return None

    del sys.modules["math"]
    sys.meta_path.insert(0, Finder())

    def f(x):
        return x * 2.0 + 1.0

    raised = []
    x = np.ones(3)
    for i in range(6):
        try:
            x = f(x)
        except KeyboardInterrupt:
            raised.append(i)
    print(json.dumps({"sent": sent, "raised": raised, "x": x.tolist()}))
    print("REPORT" + json.dumps(specula.report()))
"""


def _expected_doublings(raised, calls):
    x = 1.0
    for i in range(calls):
        if i not in raised:
            x = x * 2.0 + 1.0
    return x


def test_a_sigint_while_the_engine_loads_surfaces_once(tmp_path):
    on = run_program(tmp_path, LOAD_PROGRAM)
    assert on.returncode == 0, on.stderr
    out = json.loads(on.stdout.split("REPORT")[0])
    assert out["sent"] == ["math"], out
    assert len(out["raised"]) == 1, f"{len(out['sent'])} SIGINT sent, raised at {out['raised']}"
    # The interrupted call had no effect; the engine loaded at the next one
    # and ran the others as graphs.
    assert out["x"] == [_expected_doublings(out["raised"], 6)] * 3, out
    report = json.loads(on.stdout.split("REPORT")[1])
    assert sum(r["graph_runs"] for r in report if r["name"] == "f") > 0, report
    off = run_program(tmp_path, LOAD_PROGRAM, engine="off")
    assert off.returncode == 0, off.stderr
    out_off = json.loads(off.stdout.split("REPORT")[0])
    assert out_off["sent"] == [] and out_off["raised"] == [], out_off
    assert out_off["x"] == [_expected_doublings([], 6)] * 3, out_off


# specula.explain() states an identity guard with the guarded object's repr:
# a class's repr is its metaclass's __repr__, user code, where the SIGINT
# lands here. It surfaces from explain(), the call that ran it.
EXPLAIN_PROGRAM = """
    import json, os, signal
    import numpy as np
    import specula

    sent = []
    armed = []

    class Meta(type):
        def __repr__(cls):
            if armed:
                armed.clear()
                sent.append(cls.__name__)
                os.kill(os.getpid(), signal.SIGINT)  # raises here, as from Jupyter
            return "<Thing>"

    class Thing(metaclass=Meta):
        pass

    def f(x):
        if x is Thing:  # reads Thing: an identity guard
            return x
        return x * 2.0

    x = np.ones(3)
    for i in range(4):
        x = f(x)
    raised = []
    armed.append(True)
    try:
        specula.explain("f")
    except KeyboardInterrupt:
        raised.append("explain")
    text = specula.explain("f")
    print(json.dumps({"sent": sent, "raised": raised, "states_thing": "<Thing>" in text}))
"""


def test_a_sigint_in_a_repr_explain_runs_surfaces_once(tmp_path):
    proc = run_program(tmp_path, EXPLAIN_PROGRAM)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["sent"] == ["Thing"], out
    assert out["raised"] == ["explain"], out
    assert out["states_thing"], out


# A dict key hashing like the name KEY_NAME and equal only to itself: it counts
# who compares it, CPython's own lookups (OWN: the instruction the caller's
# frame is at) or the engine's, and the engine's ARM-th comparison sends the
# SIGINT. Pasted into the programs below.
COUNTING_KEY = """
    class Key:
        def __hash__(self):
            return hash(KEY_NAME)

        def __eq__(self, other):
            frame = sys._getframe(1)
            if dis.opname[frame.f_code.co_code[frame.f_lasti]] in OWN:
                counts["cpython"] += 1
            else:
                counts["engine"] += 1
                if counts["engine"] == ARM:
                    sent.append(ARM)
                    os.kill(os.getpid(), signal.SIGINT)  # raises here, as from Jupyter
            return self is other
"""


# A loop at a cell's module level run in chunks: before each chunk the engine
# reads the loop's target from the cell's globals, and those hold a user key
# hashing like the target's name, so every lookup of `i` (CPython's and the
# engine's) runs its __eq__. The SIGINT is sent from the engine's Nth lookup
# (told from CPython's own by the instruction the cell's frame is at): which
# engine step that is depends on how the chunks were sized, so a range of N
# is swept, each a fresh process. Wherever it lands, it surfaces once, and
# the loop leaves whole iterations.
CELL_LOOP_PROGRAM = """
    import ast, dis, json, os, signal, sys
    import numpy as np
    import specula

    ARM = int(sys.argv[1])
    ENGINE = os.environ["SPECULA_ENGINE"] == "on"
    OWN = {"LOAD_NAME", "STORE_NAME", "DELETE_NAME", "LOAD_GLOBAL", "STORE_GLOBAL"}
    counts = {"engine": 0, "cpython": 0}
    sent = []

    KEY_NAME = "i"
{COUNTING_KEY}
    SRC = '''
    acc = np.zeros(4)
    n = 0
    for i in range(60):
        acc = acc + xs[i]
        n = n + 1
    '''
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cell.py")
    with open(path, "w") as fh:
        fh.write(SRC)
    ns = {"np": np, "xs": np.arange(240.0).reshape(60, 4) * 0.1, Key(): "the user's key"}
    tree = ast.parse(SRC, path)
    if ENGINE:
        from specula import cell_loops
        specula._engine.install_loop_builtins(cell_loops._flags)
        tree = cell_loops.loop_transformer().visit(tree)
    code = compile(tree, path, "exec")
    raised = []
    runs = []
    for run in range(3):
        try:
            exec(code, ns)
        except KeyboardInterrupt:
            raised.append(run)
        runs.append([ns["n"], ns["acc"].tobytes().hex()])
    graph_runs = sum(r["graph_runs"] for r in specula.report()) if ENGINE else 0
    print(json.dumps({"sent": sent, "raised": raised, "runs": runs, "counts": counts,
                      "graph_runs": graph_runs}))
"""


def _cell_loop_run(tmp_path, arm, engine):
    proc = run_program(tmp_path, CELL_LOOP_PROGRAM.replace("{COUNTING_KEY}", COUNTING_KEY), engine=engine, args=(str(arm),))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _whole_iterations(acc_hex, n):
    # The loop's state after n whole iterations, in CPython's order.
    import numpy as np

    xs = np.arange(240.0).reshape(60, 4) * 0.1
    acc = np.zeros(4)
    for i in range(n):
        acc = acc + xs[i]
    return acc.tobytes().hex() == acc_hex


def test_a_sigint_in_a_key_eq_the_cell_loop_engine_runs_surfaces_once(tmp_path):
    off = _cell_loop_run(tmp_path, 0, "off")
    assert off["counts"]["engine"] == 0 and off["sent"] == [], off
    quiet = _cell_loop_run(tmp_path, 0, "on")
    assert quiet["graph_runs"] > 0 and quiet["runs"] == off["runs"], (quiet, off)
    assert quiet["counts"]["engine"] >= 30, quiet
    for arm in range(1, 31):
        out = _cell_loop_run(tmp_path, arm, "on")
        assert out["sent"] == [arm], (arm, out)
        assert len(out["raised"]) == 1, (arm, out)
        for n, acc in out["runs"]:
            assert _whole_iterations(acc, n), (arm, out)
        # The runs after the interrupted one ran to the end, as CPython's.
        assert out["runs"][out["raised"][0] + 1:] == off["runs"][out["raised"][0] + 1:], (arm, out)


# A graph run that raised a floating-point flag asks np.geterr() whether NumPy
# would act on it: Python code (here the user's own wrapper), where a pending
# signal's handler runs. The user's SIGINT handler raises SystemExit: that is
# the user's too, raised at the call, not read as "NumPy would warn".
GETERR_PROGRAM = """
    import json, os, signal
    import numpy as np
    import specula

    def on_sigint(signum, frame):
        raise SystemExit(3)

    signal.signal(signal.SIGINT, on_sigint)
    sent = []
    real_geterr = np.geterr

    def geterr():
        if not sent:
            sent.append("geterr")
            os.kill(os.getpid(), signal.SIGINT)  # the handler raises here
        return real_geterr()

    np.geterr = geterr

    def f(x, y):
        return x / y + 1.0

    exited = []
    out = []
    x = np.ones(3)
    y = np.array([1.0, 0.0, 2.0])
    for i in range(4):
        if i in SKIP:
            continue
        try:
            out.append(f(x, y).tolist())
        except SystemExit as e:
            exited.append([i, e.code])
    print(json.dumps({"sent": sent, "exited": exited, "out": out}))
"""


def test_a_systemexit_from_the_users_handler_in_geterr_surfaces_once(tmp_path):
    on = run_program(tmp_path, GETERR_PROGRAM.replace("SKIP", "[]"))
    assert on.returncode == 0, on.stderr
    out = json.loads(on.stdout)
    assert out["sent"] == ["geterr"], out
    assert len(out["exited"]) == 1 and out["exited"][0][1] == 3, out
    # Engine off nothing asks np.geterr; without the interrupted call the
    # results are CPython's.
    skip = [out["exited"][0][0]]
    off = run_program(tmp_path, GETERR_PROGRAM.replace("SKIP", repr(skip)), engine="off")
    assert off.returncode == 0, off.stderr
    out_off = json.loads(off.stdout)
    assert out_off["sent"] == [] and out_off["exited"] == [], out_off
    assert out_off["out"] == out["out"], (out, out_off)


# Recursion over tree nodes whose instance dicts hold a user key hashing like
# the method name `is_leaf`: every lookup of it runs the key's __eq__,
# CPython's (at `node.is_leaf`) and the engine's (reading the method when it
# converts, checking no node shadows it at every call). The SIGINT is sent
# from the engine's Nth lookup; the first ones land in the conversion, the
# later ones in the tree walk before a graph run.
TREE_PROGRAM = """
    import dis, json, os, signal, sys
    import numpy as np
    import specula

    ARM = int(sys.argv[1])
    OWN = {"LOAD_METHOD", "LOAD_ATTR"}
    counts = {"engine": 0, "cpython": 0}
    sent = []

    KEY_NAME = "is_leaf"
{COUNTING_KEY}
    class Node:
        def __init__(self, word=None, left=None, right=None):
            self.word, self.left, self.right = word, left, right
            self.__dict__[Key()] = "the user's key"

        def is_leaf(self):
            return self.word is not None

    def tree(depth, w):
        if depth == 0:
            return Node(word=w % 5)
        return Node(left=tree(depth - 1, 2 * w), right=tree(depth - 1, 2 * w + 1))

    L = np.arange(20.0).reshape(5, 4) * 0.25
    W = np.eye(4, 8) * 0.5

    def encode(node):
        if node.is_leaf():
            return L[node.word]
        h = np.concatenate([encode(node.left), encode(node.right)])
        return np.tanh(W @ h)

    t = tree(3, 1)
    raised = []
    out = []
    for i in range(8):
        if i in SKIP:
            continue
        try:
            out.append(encode(t).tobytes().hex())
        except KeyboardInterrupt:
            raised.append(i)
    rows = [r for r in specula.report() if r["name"] == "encode"]
    print(json.dumps({"sent": sent, "raised": raised, "out": out, "counts": counts,
                      "graph_runs": rows[0]["graph_runs"] if rows else 0}))
"""


def test_a_sigint_in_a_key_eq_the_tree_recursion_runs_surfaces_once(tmp_path):
    def run(arm, engine, skip=()):
        source = TREE_PROGRAM.replace("{COUNTING_KEY}", COUNTING_KEY).replace("SKIP", repr(list(skip)))
        proc = run_program(tmp_path, source, engine=engine, args=(str(arm),))
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    off = run(0, "off")
    assert off["counts"]["engine"] == 0 and off["sent"] == [], off
    quiet = run(0, "on")
    assert quiet["graph_runs"] > 0 and quiet["out"] == off["out"], (quiet, off)
    assert quiet["counts"]["engine"] >= 16, quiet
    for arm in range(1, 17):
        out = run(arm, "on")
        assert out["sent"] == [arm], (arm, out)
        assert len(out["raised"]) == 1, (arm, out)
        # The interrupted call had no effect; the others returned CPython's.
        assert out["out"] == run(0, "off", out["raised"])["out"], (arm, out)
