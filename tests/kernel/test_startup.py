"""Start-up: clear errors and non-zero exits, the right interpreter, no noise."""

import json
import os
import platform
import socket
import subprocess
import tempfile

from kernel_harness import EXIT_PORT_IN_USE, execute, outputs, start_kernel, stop_kernel

EXE = os.environ["SPECULA_EXECUTABLE"]


def run(args, env=None, timeout=60):
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


def test_version_and_help():
    version = run(["--version"])
    assert version.returncode == 0
    assert version.stdout.startswith("specula ")
    help_ = run(["--help"])
    assert help_.returncode == 0 and "-f CONNECTION_FILE" in help_.stdout


def test_missing_connection_file_is_a_clear_error():
    result = run(["-f", "/nonexistent/kernel-1.json"])
    assert result.returncode != 0
    assert "cannot read connection file" in result.stderr


def test_malformed_connection_file_is_a_clear_error():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write("{\"ip\": ")
    try:
        result = run(["-f", f.name])
        assert result.returncode != 0
        assert "not a JSON object" in result.stderr
    finally:
        os.unlink(f.name)


def test_unknown_argument_is_rejected():
    result = run(["--bogus"])
    assert result.returncode == 2
    assert "unknown argument '--bogus'" in result.stderr


def test_missing_python_package_is_named(tmp_path):
    # A module that fails to import stands in for an uninstalled package.
    (tmp_path / "IPython").mkdir()
    (tmp_path / "IPython" / "__init__.py").write_text("raise ImportError('gone')\n")
    connection = tmp_path / "kernel.json"
    connection.write_text(json.dumps({
        "transport": "tcp", "ip": "127.0.0.1", "shell_port": 0, "control_port": 0,
        "stdin_port": 0, "iopub_port": 0, "hb_port": 0, "key": "",
        "signature_scheme": "hmac-sha256"}))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    result = run(["-f", str(connection)], env=env)
    assert result.returncode != 0
    assert "'IPython'" in result.stderr and "python3-ipython" in result.stderr


def test_a_taken_port_exits_with_its_own_status(tmp_path):
    """Launchers start the kernel again with new ports on this status, and only on it."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        connection = tmp_path / "kernel.json"
        connection.write_text(json.dumps({
            "transport": "tcp", "ip": "127.0.0.1", "shell_port": port, "control_port": port,
            "stdin_port": port, "iopub_port": port, "hb_port": port, "key": "",
            "signature_scheme": "hmac-sha256"}))
        result = run(["-f", str(connection)])
    assert result.returncode == EXIT_PORT_IN_USE, result
    assert "a port of the connection file is in use" in result.stderr
    assert "new ports" in result.stderr
    assert f"{EXIT_PORT_IN_USE} when a port" in run(["--help"]).stdout


def test_kernel_runs_debian_python_quietly(tmp_path):
    out_path, err_path = tmp_path / "out", tmp_path / "err"
    with open(out_path, "w") as out, open(err_path, "w") as err:
        km, kc = start_kernel(stdout=out, stderr=err)
        try:
            msg_id = kc.kernel_info()
            info = kc.get_shell_msg(timeout=30)["content"]
            assert info["implementation"] == "specula"
            assert info["language_info"]["version"] == platform.python_version()
            _, messages = execute(kc, "import sys\n(sys.executable, sys.argv[1:])")
            result = outputs(messages, "execute_result")[0]["data"]["text/plain"]
            assert result == "('/usr/bin/python3', [])"
            execute(kc, "print('to the notebook, not the terminal')")
        finally:
            stop_kernel(km, kc)
    assert out_path.read_text() == ""
    assert err_path.read_text() == ""


def test_kernelspec_is_listed():
    from jupyter_client.kernelspec import KernelSpecManager
    spec = KernelSpecManager().get_kernel_spec("specula")
    assert spec.display_name == "Python 3 (Specula)"
    assert spec.language == "python"
    assert spec.argv[1:] == ["-f", "{connection_file}"]
    assert os.path.exists(os.path.join(spec.resource_dir, "logo-64x64.png"))
    assert os.path.exists(os.path.join(spec.resource_dir, "logo-32x32.png"))


def test_kernel_exits_cleanly_after_loops_ran_in_chunks():
    """A loop's state (the iterator and the sequence it walks) outlives the
    loop until the kernel ends; shutting down must not release it after the
    interpreter has gone (a crash at exit, with the engine on)."""
    env = dict(os.environ, SPECULA_THRESHOLD="0", SPECULA_COST_CHECK="off")
    km, kc = start_kernel(env=env)
    process = km.provisioner.process
    reply, _ = execute(kc, "import numpy as np\n"
                           "xs = [float(i) for i in range(300)]\n"
                           "acc = np.zeros(3)\n"
                           "for x in xs:\n"
                           "    acc = acc * 0.5 + x\n"
                           "for i in range(300):\n"
                           "    acc = acc + 1.0\n"
                           "import specula\n"
                           "assert any(r.get('chunks') for r in specula.report()), specula.report()\n")
    assert reply["status"] == "ok", reply
    stop_kernel(km, kc)
    assert process.wait(timeout=30) == 0
