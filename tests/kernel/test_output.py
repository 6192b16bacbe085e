"""Streams, rich output and magics as a Python kernel should show them."""

import pytest

from kernel_harness import execute, outputs, stdout_text, start_kernel, stop_kernel


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel()
    yield km, kc
    stop_kernel(km, kc)


def test_a_print_is_one_stream_message(kernel):
    _, kc = kernel
    _, messages = execute(kc, "print('a', 'b', 3, 4.5, None, sep='|')")
    streams = outputs(messages, "stream")
    assert streams == [{"name": "stdout", "text": "a|b|3|4.5|None\n"}]


def test_many_prints_are_coalesced_and_complete(kernel):
    _, kc = kernel
    _, messages = execute(kc, "for i in range(2000):\n    print(i)")
    streams = outputs(messages, "stream")
    assert len(streams) < 2000
    assert stdout_text(messages) == "".join(f"{i}\n" for i in range(2000))


def test_progress_is_shown_while_a_cell_sleeps(kernel):
    _, kc = kernel
    _, messages = execute(kc, "import time\nprint('a')\ntime.sleep(2)\nprint('b')")
    # Published by the timer during the sleep, not glued to 'b' at the end.
    assert [s["text"] for s in outputs(messages, "stream")] == ["a\n", "b\n"]


def test_stdout_and_stderr_keep_their_order(kernel):
    _, kc = kernel
    _, messages = execute(kc, "import sys\nprint('1')\nprint('2', file=sys.stderr)\nprint('3')")
    streams = [(s["name"], s["text"]) for s in outputs(messages, "stream")]
    assert streams == [("stdout", "1\n"), ("stderr", "2\n"), ("stdout", "3\n")]


def test_text_before_display_comes_first(kernel):
    _, kc = kernel
    _, messages = execute(kc, "from IPython.display import display, HTML\n"
                              "print('first')\ndisplay(HTML('<i>second</i>'))")
    kinds = [m["msg_type"] for m in messages if m["msg_type"] in ("stream", "display_data")]
    assert kinds == ["stream", "display_data"]


def test_matplotlib_inline_png(kernel):
    _, kc = kernel
    content, messages = execute(kc, "import matplotlib.pyplot as plt\n"
                                    "plt.plot([1, 3, 2])\nplt.show()")
    assert content["status"] == "ok"
    images = [d for d in outputs(messages, "display_data") if "image/png" in d["data"]]
    assert len(images) == 1


def test_rich_repr_in_execute_result(kernel):
    _, kc = kernel
    _, messages = execute(kc, "class Card:\n    def _repr_html_(self):\n"
                              "        return '<b>card</b>'\nCard()")
    result = outputs(messages, "execute_result")[0]
    assert result["data"]["text/html"] == "<b>card</b>"
    assert "text/plain" in result["data"]


def test_line_and_cell_magics(kernel):
    _, kc = kernel
    content, messages = execute(kc, "%timeit -n1 -r1 sum(range(10))")
    assert content["status"] == "ok"
    assert "per loop" in stdout_text(messages)
    content, messages = execute(kc, "%%capture captured\nprint('hidden')")
    assert stdout_text(messages) == ""
    _, messages = execute(kc, "captured.stdout")
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "'hidden\\n'"


def test_stdout_is_a_text_stream(kernel):
    _, kc = kernel
    _, messages = execute(kc, "import sys\n(sys.stdout.isatty(), sys.stdout.encoding, "
                              "sys.stdout.writable(), sys.stdout.write('xy'))")
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == \
        "(False, 'utf-8', True, 2)"
    content, _ = execute(kc, "import sys\nsys.stdout.write(b'bytes')")
    assert content["ename"] == "TypeError"


def test_unicode_survives(kernel):
    _, kc = kernel
    _, messages = execute(kc, "print('naïve ∑ 🚀')")
    assert stdout_text(messages) == "naïve ∑ 🚀\n"


def test_semicolon_suppresses_the_result(kernel):
    _, kc = kernel
    _, messages = execute(kc, "1 + 1;")
    assert outputs(messages, "execute_result") == []
