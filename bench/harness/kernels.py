"""Kernel contenders: a Jupyter kernel started through jupyter_client.

The timed cell is sent as one execute request with perf_counter calls around it, so the
kernel (and, later, Specula's engine) sees the cell as written plus two statements.
"""
import ast
import json
import sys
import time

from jupyter_client.manager import KernelManager

from .contenders import ContenderError, child_env

# jupyter_client picks free ports and releases them before the kernel binds them;
# another process's connection can take one meanwhile, and the kernel exits.
# Such a kernel is started again with new ports; one that keeps dying still fails.
START_ATTEMPTS = 3

TIMER_START = "_bench_t0 = __import__('time').perf_counter()\n"
TIMER_STOP = "\n_bench_dt = __import__('time').perf_counter() - _bench_t0"

ENGINE_REPORT = """\
try:
    import specula as _bench_specula
except ImportError:
    _bench_report = None
else:
    try:
        _bench_report = _bench_specula.report()
    except Exception as _bench_error:  # a broken report must not lose the timings
        _bench_report = f"report() failed: {_bench_error!r}"
"""


class KernelContender:
    def __init__(self, name, kernel_name, quick, env=None, timeout=900):
        self.name, self.kernel_name, self.timeout = name, kernel_name, timeout
        self.env = child_env(quick, env)
        self.km = None
        self.kc = None
        self.info = {}

    def launch(self):
        self.km = KernelManager(kernel_name=self.kernel_name)
        self.km.start_kernel(env=self.env)

    def wait_ready(self):
        for attempt in range(1, START_ATTEMPTS + 1):
            self.kc = self.km.client()
            self.kc.start_channels()
            try:
                self.kc.wait_for_ready(timeout=120)
                break
            except RuntimeError:
                if self.km.is_alive() or attempt == START_ATTEMPTS:
                    raise
                status = self.km.provisioner.process.poll()
                print(f"    {self.name}: the kernel exited with status {status} before it was "
                      "ready; starting it again with new ports", file=sys.stderr, flush=True)
                self.stop()
                self.launch()
        self.kc.kernel_info()
        reply = self.kc.get_shell_msg(timeout=30)["content"]
        self.info = {"implementation": reply.get("implementation", ""),
                     "version": reply.get("implementation_version", "")}

    def execute(self, code, expressions=None):
        """Run code; return (user expression values as text, seconds request-to-reply)."""
        outputs = []

        def keep(msg):
            if msg["msg_type"] in ("stream", "error"):
                outputs.append(msg["content"])

        t0 = time.perf_counter()
        reply = self.kc.execute_interactive(code, user_expressions=expressions or {},
                                            timeout=self.timeout, output_hook=keep)
        wall = time.perf_counter() - t0
        content = reply["content"]
        if content["status"] != "ok":
            raise ContenderError(f"{self.name}: {content.get('ename')}: {content.get('evalue')}")
        values = {}
        for key, value in content.get("user_expressions", {}).items():
            if value.get("status") != "ok":
                raise ContenderError(f"{self.name}: expression {key!r}: {value.get('evalue')}")
            values[key] = value["data"]["text/plain"]
        return values, wall

    def setup(self, cells):
        for cell in cells:
            self.execute(cell.source)

    def run(self, cell):
        values, wall = self.execute(TIMER_START + cell.source + TIMER_STOP,
                                    {"dt": "_bench_dt"})
        return float(values["dt"]), wall

    def check(self, cells):
        for cell in cells:
            self.execute(cell.source)

    def evaluate(self, expression):
        return self.execute("", {"value": expression})[0]["value"]

    def engine_report(self):
        """Specula's compiled/fallback counts, or None where there is no engine module."""
        values, _ = self.execute(ENGINE_REPORT,
                                 {"report": "__import__('json').dumps(_bench_report, default=str)"})
        # text/plain of a str is its repr: undo that, then the JSON.
        return json.loads(ast.literal_eval(values["report"]))

    def stop(self):
        if self.kc is not None:
            self.kc.stop_channels()
            self.kc = None
        if self.km is not None and self.km.has_kernel:
            self.km.shutdown_kernel(now=False)
        self.km = None
