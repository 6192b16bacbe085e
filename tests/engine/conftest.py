"""Prints the coverage table (where the engine stands) at the end of every run."""

import coverage_table


def pytest_terminal_summary(terminalreporter):
    for text in coverage_table.SUMMARIES:
        terminalreporter.write_sep("-", "Specula engine coverage")
        terminalreporter.write(text)
    if coverage_table.SUMMARIES:
        terminalreporter.write_line(f"(also in {coverage_table.output_dir()}/COVERAGE.md)")
