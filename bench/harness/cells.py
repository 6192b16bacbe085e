"""Workload sources are plain scripts split into cells by `# %%` markers.

A marker names the cell's role: `# %% [markdown]`, `# %% setup`, `# %% check`, or
`# %% timed [label]`. The same file runs as a script, becomes a notebook, and tells the
harness which cells to run once, which to time and which verify the results.
"""
import re
from dataclasses import dataclass

MARKER = re.compile(r"^# %%\s*(\[markdown\]|setup|check|timed)\s*(\S*)\s*$")


@dataclass
class Cell:
    kind: str  # markdown, setup, check or timed
    label: str  # the timed cell's label ("" when there is one timed cell)
    source: str


def parse(text):
    cells, kind, label, lines = [], None, "", []

    def flush():
        if kind is not None:
            cells.append(Cell(kind, label, "\n".join(lines).strip("\n")))

    for line in text.splitlines():
        match = MARKER.match(line)
        if match:
            flush()
            kind = "markdown" if match.group(1) == "[markdown]" else match.group(1)
            label, lines = match.group(2), []
        elif line.startswith("# %%"):
            raise ValueError(f"unknown cell marker: {line!r}")
        elif kind is not None:
            lines.append(line)
    flush()
    for cell in cells:
        if cell.kind == "markdown":
            cell.source = "\n".join(l[2:] if l.startswith("# ") else l.lstrip("#")
                                    for l in cell.source.splitlines())
    return cells


def read(path):
    with open(path, encoding="utf-8") as f:
        return parse(f.read())
