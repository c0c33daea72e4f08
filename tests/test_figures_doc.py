"""The explain panels say, word for word, what docs/metrics.md defines: every figure of
dashboard/shared/figures.py is a row of its table there, and every row of those tables
is a figure the panels can show."""

from pathlib import Path

from dashboard.shared.figures import FIGURES

DOC = Path(__file__).resolve().parent.parent / "docs" / "metrics.md"


def tables() -> dict[str, set[tuple]]:
    """Each `## title` section's table rows (header and rule left out), as cell tuples."""
    found, title = {}, None
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):
            title = line[3:].strip()
        elif line.startswith("|") and not line.startswith(("| Figure |", "|---")):
            cells = tuple(cell.strip() for cell in line.strip().strip("|").split(" | "))
            found.setdefault(title, set()).add(cells)
    return found


def test_every_figure_is_defined_in_the_doc_word_for_word_and_nothing_else_is():
    doc = tables()
    panels: dict[str, set[tuple]] = {}
    for f in FIGURES.values():
        panels.setdefault(f.table, set()).add((f.name, f.formula, f.window, f.source))
    for table, rows in panels.items():
        assert table in doc, f"docs/metrics.md has no section {table!r}"
        assert rows - doc[table] == set(), f"panels say, the doc does not ({table})"
        assert doc[table] - rows == set(), f"the doc says, no panel does ({table})"
