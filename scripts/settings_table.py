"""Print the README configuration table from the one Settings object."""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.config import ROOT, Settings


def table() -> str:
    rows = ["| variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.default
        shown = "" if default in (None, "") else str(default)
        if name == "var_dir":
            shown = "var"
        rows.append(
            f"| `TIMELYPUSH_{name.upper()}` | `{shown}` | {field.description or ''} |"
            if shown
            else f"| `TIMELYPUSH_{name.upper()}` | | {field.description or ''} |"
        )
    return "\n".join(rows)


def write_readme(path: Path) -> None:
    """Replace the table between the settings markers in README.md."""
    text = path.read_text(encoding="utf-8")
    start, end = "<!-- settings:start -->", "<!-- settings:end -->"
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{start}\n{table()}\n{end}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write_readme(ROOT / "README.md")
    else:
        print(table())
