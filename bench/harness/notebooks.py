"""The benchmark notebooks are generated from bench/workloads/*.py, never edited by hand."""
import glob
import os

import nbformat

from . import cells as cell_files
from .registry import BENCH_DIR, WORKLOAD_DIR

NOTEBOOK_DIR = os.path.join(os.path.dirname(BENCH_DIR), "notebooks", "bench")


def build(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"name": "specula", "display_name": "Python 3 (Specula)",
                       "language": "python"},
        "language_info": {"name": "python"},
    }
    header = nbformat.v4.new_markdown_cell(
        f"*Generated from `bench/workloads/{stem}.py` by `bench/make_notebooks`; "
        "edit that file instead.*", id=f"{stem}-generated")
    nb.cells.append(header)
    for i, cell in enumerate(cell_files.read(path)):
        cell_id = f"{stem}-{i}"
        if cell.kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell.source, id=cell_id))
        else:
            code = nbformat.v4.new_code_cell(cell.source, id=cell_id)
            code.metadata["tags"] = [cell.kind] + ([cell.label] if cell.label else [])
            nb.cells.append(code)
    return stem + ".ipynb", nbformat.writes(nb) + "\n"


def expected():
    return dict(build(p) for p in sorted(glob.glob(os.path.join(WORKLOAD_DIR, "w*.py"))))


def write():
    os.makedirs(NOTEBOOK_DIR, exist_ok=True)
    for name, text in expected().items():
        with open(os.path.join(NOTEBOOK_DIR, name), "w", encoding="utf-8") as f:
            f.write(text)


def stale():
    """Names of notebooks that are missing, differ from their source, or have no source."""
    want = expected()
    have = {os.path.basename(p) for p in glob.glob(os.path.join(NOTEBOOK_DIR, "*.ipynb"))}
    out = sorted(have - set(want))
    for name, text in want.items():
        path = os.path.join(NOTEBOOK_DIR, name)
        if not os.path.exists(path) or open(path, encoding="utf-8").read() != text:
            out.append(name)
    return out
