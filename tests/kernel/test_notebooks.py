"""Every notebook under notebooks/ runs without error in the specula kernel."""

import glob
import os

import nbformat
import pytest
from nbclient import NotebookClient

from kernel_harness import source_path, start_kernel, stop_kernel

NOTEBOOKS = sorted(glob.glob(source_path("notebooks", "**", "*.ipynb"), recursive=True))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_notebook_executes(path):
    nb = nbformat.read(path, as_version=4)
    # Started here, not by nbclient, so that a start that lost its ports is retried.
    km, kc = start_kernel(cwd=os.path.dirname(path))
    try:
        client = NotebookClient(nb, km=km, timeout=600)
        client.kc = kc
        client.execute()  # raises CellExecutionError on the first failing cell
    finally:
        stop_kernel(km, kc)
    out_dir = os.environ["SPECULA_TEST_OUTPUT_DIR"]
    os.makedirs(out_dir, exist_ok=True)
    nbformat.write(nb, os.path.join(out_dir, os.path.basename(path)))
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert errors == []
    # A notebook comparing engine off with engine on (the demo) says so per model.
    stdout = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                     for o in c.get("outputs", []) if o.get("name") == "stdout")
    verdicts = [line for line in stdout.splitlines() if "bit-for-bit identical" in line]
    assert all(line.endswith(": True") for line in verdicts), verdicts
    if os.path.basename(path) == "demo.ipynb":
        assert len(verdicts) == 2, stdout
