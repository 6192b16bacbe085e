"""Specula against Debian's ipykernel (the `python3` kernel) on the same cells:
replies and published output must match, so notebooks behave as they did."""

import os
import re

import pytest

import kernel_harness as kh

# Cells run in this order in both kernels; later cells see earlier state.
CELLS = [
    "x = 6 * 7\nx",
    "print('a', 'b', sep='-')\nprint('c', end='')",
    "import sys\nsys.stdout.write('no newline')",
    "import sys\nprint('out')\nprint('err', file=sys.stderr)\nprint('out again')",
    "1 + 1;",
    "_",
    "Out[1]",
    "[1, 2.5, 'three', None, (4,)]",
    "{'k': [1, 2], 'nested': {'a': 1}}",
    "import numpy as np\nnp.arange(12).reshape(3, 4) * 0.5",
    "np.float32(1) / 3",
    "np.array([], dtype=np.int64)",
    "from IPython.display import display, Markdown\ndisplay(Markdown('**bold**'))\n'after'",
    "1/0",
    "raise KeyError('missing')",
    "def broken(:\n    pass",
    "undefined_name + 1",
    "%timeit -zz",
    "%load_ext module_that_does_not_exist",
    "%who_ls",
    "!echo from the shell",
    "for i in range(3):\n    print(i)",
    "class Thing:\n    def __repr__(self):\n        return 'Thing()'\nThing()",
    "assert 1 == 2, 'not equal'",
    "import warnings\nwarnings.warn('careful')",
    "np.ones(3) @ np.ones(4)",
    "int('x')",
    "'unicode: ∑ 🚀'",
    "big = 2 ** 100\nbig",
]


def normalise(text):
    # Addresses and kernel-specific temp file names are not behaviour.
    text = re.sub(r"0x[0-9a-f]+", "0x…", text)
    return re.sub(r"/tmp/[^\s'\"]+\.py", "<cell>", text)


def shape_of(messages):
    """Non-stream messages in order, plus the full text of each stream.

    Each stream's text is compared whole: ipykernel buffers stdout and stderr
    separately and may reorder them relative to each other, where Specula
    keeps the order in which they were written.
    """
    ordered, streams = [], {"stdout": "", "stderr": ""}
    for m in messages:
        kind, c = m["msg_type"], m["content"]
        if kind == "stream":
            streams[c["name"]] += normalise(c["text"])
        elif kind in ("execute_result", "display_data"):
            ordered.append((kind, sorted(c["data"]), normalise(c["data"].get("text/plain", ""))))
        elif kind == "error":
            ordered.append((kind, c["ename"], normalise(c["evalue"])))
        else:
            ordered.append((kind,))
    return ordered, streams


def run_all(kernel_name):
    kh.KERNEL_NAME = kernel_name
    km, kc = kh.start_kernel()
    try:
        results = []
        for code in CELLS:
            # stop_on_error=False: ipykernel aborts requests that arrive
            # within a short window after an error, which is timing, not behaviour.
            reply, messages = kh.execute(kc, code, stop_on_error=False)
            messages = [m for m in messages if m["msg_type"] != "execute_input"]
            results.append(({k: normalise(str(reply.get(k))) for k in
                             ("status", "ename", "evalue", "execution_count")},
                            shape_of(messages)))
        return results
    finally:
        kh.stop_kernel(km, kc)
        kh.KERNEL_NAME = "specula"


@pytest.fixture(scope="module")
def both():
    return run_all("python3"), run_all("specula")


@pytest.mark.parametrize("index", range(len(CELLS)), ids=[c.splitlines()[0][:30] for c in CELLS])
def test_same_reply_and_output_as_ipykernel(both, index):
    reference, specula = both
    ref_reply, ref_out = reference[index]
    our_reply, our_out = specula[index]
    assert our_reply == ref_reply
    if CELLS[index].startswith("%timeit"):
        return
    assert our_out == ref_out
