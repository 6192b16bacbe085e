"""Starting a specula kernel and talking to it, for the protocol tests."""

import os
import queue
import time

from jupyter_client.manager import KernelManager

KERNEL_NAME = "specula"
TIMEOUT = 30
# The kernel's exit status when a port of its connection file was taken
# (kernel/kernel_options.hpp): jupyter_client picks free ports, releases them,
# and a parallel test's connection can take one before the kernel binds it.
EXIT_PORT_IN_USE = 75
START_ATTEMPTS = 3


def start_kernel(**kwargs):
    """A (manager, client) pair for a fresh specula kernel.

    Only a kernel that exited saying a port was taken is started again, with
    new ports; every other failure to start fails the test."""
    for attempt in range(START_ATTEMPTS):
        km = KernelManager(kernel_name=KERNEL_NAME)
        km.start_kernel(**kwargs)
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            return km, kc
        except RuntimeError:  # it died, or did not answer in time
            kc.stop_channels()
            taken = not km.is_alive() and km.provisioner.process.poll() == EXIT_PORT_IN_USE
            km.shutdown_kernel(now=True)
            if not taken or attempt == START_ATTEMPTS - 1:
                raise


def stop_kernel(km, kc):
    kc.stop_channels()
    km.shutdown_kernel(now=False)


def collect(kc, msg_id, timeout=TIMEOUT):
    """IOPub messages for one request, up to its idle status (excluded)."""
    messages = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"no idle status for {msg_id}")
        try:
            msg = kc.get_iopub_msg(timeout=remaining)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            return messages
        messages.append(msg)


def shell_reply(kc, msg_id, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while True:
        reply = kc.get_shell_msg(timeout=max(0.1, deadline - time.monotonic()))
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def execute(kc, code, timeout=TIMEOUT, **kwargs):
    """Runs a cell; returns (reply content, iopub messages)."""
    msg_id = kc.execute(code, **kwargs)
    reply = shell_reply(kc, msg_id, timeout)
    return reply["content"], collect(kc, msg_id, timeout)


def outputs(messages, msg_type):
    return [m["content"] for m in messages if m["msg_type"] == msg_type]


def stdout_text(messages):
    return "".join(c["text"] for c in outputs(messages, "stream") if c["name"] == "stdout")


def source_path(*parts):
    return os.path.join(os.environ["SPECULA_SOURCE_DIR"], *parts)
