"""input()/getpass() over the stdin channel, and the shape of error replies."""

import pytest

from kernel_harness import collect, execute, outputs, shell_reply, start_kernel, stop_kernel


@pytest.fixture(scope="module")
def kernel():
    km, kc = start_kernel()
    yield km, kc
    stop_kernel(km, kc)


def answer_input(kc, code, answer):
    msg_id = kc.execute(code, allow_stdin=True)
    request = kc.get_stdin_msg(timeout=30)
    assert request["msg_type"] == "input_request"
    kc.input(answer)
    reply = shell_reply(kc, msg_id)
    return request["content"], reply["content"], collect(kc, msg_id)


def test_input_round_trip(kernel):
    _, kc = kernel
    request, reply, _ = answer_input(kc, "name = input('your name? ')", "Ada")
    assert request["prompt"] == "your name? "
    assert request["password"] is False
    assert reply["status"] == "ok"
    _, messages = execute(kc, "print('hello', name)")
    assert outputs(messages, "stream")[0]["text"] == "hello Ada\n"


def test_getpass_is_a_password_request(kernel):
    _, kc = kernel
    request, reply, _ = answer_input(kc, "import getpass\npw = getpass.getpass('pw: ')", "s3cret")
    assert request["password"] is True
    _, messages = execute(kc, "len(pw)")
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "6"


def test_output_before_input_arrives_first(kernel):
    _, kc = kernel
    _, reply, messages = answer_input(kc, "print('before')\nx = input()", "")
    assert reply["status"] == "ok"
    assert outputs(messages, "stream")[0]["text"] == "before\n"


def test_input_without_stdin_raises(kernel):
    _, kc = kernel
    content, _ = execute(kc, "input('x')", allow_stdin=False)
    assert content["status"] == "error"
    assert content["ename"] == "StdinNotImplementedError"


@pytest.mark.parametrize("code, ename", [
    ("1/0", "ZeroDivisionError"),
    ("{}['missing']", "KeyError"),
    ("class DataError(Exception):\n    pass\nraise DataError('bad row')", "DataError"),
    ("import numpy as np\nnp.ones(3) @ np.ones(4)", "ValueError"),
    ("def f(:\n    pass", "SyntaxError"),
    ("undefined_name", "NameError"),
])
def test_error_reply_carries_plain_class_name(kernel, code, ename):
    _, kc = kernel
    content, messages = execute(kc, code)
    assert content["status"] == "error"
    assert content["ename"] == ename
    assert isinstance(content["evalue"], str)
    assert content["traceback"] and all(isinstance(line, str) for line in content["traceback"])
    errors = outputs(messages, "error")
    assert len(errors) == 1
    assert errors[0]["ename"] == ename
    assert errors[0]["evalue"] == content["evalue"]


def test_error_value_and_count(kernel):
    _, kc = kernel
    first, _ = execute(kc, "raise RuntimeError('boom')")
    assert first["evalue"] == "boom"
    second, _ = execute(kc, "1")
    assert second["execution_count"] == first["execution_count"] + 1


def test_silent_error_publishes_nothing(kernel):
    _, kc = kernel
    content, messages = execute(kc, "1/0", silent=True)
    assert content["status"] == "error"
    assert outputs(messages, "error") == []


def test_interrupt_while_waiting_for_input(kernel):
    km, kc = kernel
    msg_id = kc.execute("answer = input('? ')", allow_stdin=True)
    request = kc.get_stdin_msg(timeout=30)
    assert request["msg_type"] == "input_request"
    # The wait is a zmq receive: the interrupt must not abort the kernel. It
    # is delivered once the frontend answers.
    for _ in range(3):
        km.interrupt_kernel()
    kc.input("late")
    reply = shell_reply(kc, msg_id)["content"]
    collect(kc, msg_id)
    assert reply["status"] == "error"
    assert reply["ename"] == "KeyboardInterrupt"
    content, messages = execute(kc, "'answer' in globals()")
    assert content["status"] == "ok"
    assert outputs(messages, "execute_result")[0]["data"]["text/plain"] == "False"
