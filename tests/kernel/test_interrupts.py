"""Interrupts, shutdown and restart: a busy cell raises KeyboardInterrupt, an
idle interrupt does nothing, the kernel leaves cleanly."""

import time

import pytest

from kernel_harness import collect, execute, outputs, shell_reply, start_kernel, stop_kernel


@pytest.fixture
def kernel():
    km, kc = start_kernel()
    yield km, kc
    stop_kernel(km, kc)


def wait_until_busy(kc, msg_id):
    while True:
        msg = kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_input":
            return


def interrupt_running(km, kc, code):
    """Starts `code`, interrupts it once it runs, returns (reply, iopub, latency)."""
    msg_id = kc.execute(code)
    wait_until_busy(kc, msg_id)
    time.sleep(0.3)  # let the cell get into its loop or sleep
    sent = time.monotonic()
    km.interrupt_kernel()
    # The cells below run for 10 minutes unless interrupted; a reply within
    # the harness timeout therefore proves the interrupt took effect.
    reply = shell_reply(kc, msg_id, timeout=60)
    latency = time.monotonic() - sent
    return reply["content"], collect(kc, msg_id), latency


@pytest.mark.parametrize("code", [
    "import time\ntime.sleep(600)",
    "while True:\n    pass",
    "import numpy as np\nwhile True:\n    np.ones(100).sum()",
])
def test_busy_cell_raises_keyboard_interrupt(kernel, code):
    km, kc = kernel
    content, messages, latency = interrupt_running(km, kc, code)
    print(f"interrupt latency {latency:.3f} s for {code!r}")
    assert content["status"] == "error"
    assert content["ename"] == "KeyboardInterrupt"
    errors = outputs(messages, "error")
    assert len(errors) == 1 and errors[0]["ename"] == "KeyboardInterrupt"


def test_state_survives_an_interrupt(kernel):
    km, kc = kernel
    execute(kc, "x = 41")
    content, _, _ = interrupt_running(km, kc, "import time\nx += 1\ntime.sleep(600)")
    assert content["ename"] == "KeyboardInterrupt"
    content, messages = execute(kc, "x")
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "42"


def test_idle_interrupts_are_harmless(kernel):
    km, kc = kernel
    for _ in range(3):
        km.interrupt_kernel()
        time.sleep(0.2)
    content, messages = execute(kc, "import time\ntime.sleep(0.5)\n6 * 7")
    assert content["status"] == "ok"
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "42"
    assert km.is_alive()


def test_kernel_keeps_working_after_many_interrupts(kernel):
    km, kc = kernel
    for i in range(5):
        content, _, _ = interrupt_running(km, kc, "import time\ntime.sleep(600)")
        assert content["ename"] == "KeyboardInterrupt"
    content, messages = execute(kc, "'still here'")
    assert content["status"] == "ok"


def test_shutdown_is_clean():
    km, kc = start_kernel()
    execute(kc, "print('working')")
    process = km.provisioner.process
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    # A kernel that had to be killed would show a negative signal code.
    assert process.wait(timeout=30) == 0


def test_restart_gives_a_fresh_working_kernel():
    km, kc = start_kernel()
    try:
        execute(kc, "secret = 1")
        km.restart_kernel(now=False)
        kc.wait_for_ready(timeout=60)
        content, messages = execute(kc, "'secret' in globals()")
        assert content["status"] == "ok"
        assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "False"
        content, messages = execute(kc, "1 + 1")
        assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "2"
    finally:
        stop_kernel(km, kc)


def test_idle_interrupts_with_threads_started_in_cells(kernel):
    # Threads started inside a cell (and OpenBLAS's workers) may have SIGINT
    # unblocked; an idle interrupt the OS hands to them must not surface as a
    # KeyboardInterrupt in the next cell, and a busy one must still land.
    km, kc = kernel
    execute(kc, "import threading, time\nimport numpy as np\n"
                "worker = threading.Thread(target=time.sleep, args=(60,), daemon=True)\n"
                "worker.start()\nnp.ones((200, 200)) @ np.ones((200, 200))")
    for _ in range(5):
        km.interrupt_kernel()
        time.sleep(0.1)
    content, messages = execute(kc, "import time\ntime.sleep(0.3)\n'calm'")
    assert content["status"] == "ok"
    content, _, _ = interrupt_running(km, kc, "import time\ntime.sleep(600)")
    assert content["ename"] == "KeyboardInterrupt"
