"""README stays true: every setting is documented, and Quickstart has exactly two commands."""

from __future__ import annotations

import re

from app.core.config import ROOT, Settings


def _readme() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_in_the_readme_table() -> None:
    readme = _readme()
    missing = [n for n in Settings.model_fields if f"`TIMELYPUSH_{n.upper()}`" not in readme]
    assert missing == [], (
        f"document these settings in README (scripts/settings_table.py): {missing}"
    )


def test_quickstart_has_two_commands_and_ci_runs_the_test_one() -> None:
    readme = _readme()
    quick = readme.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|bash)?\n(.*?)```", quick, flags=re.S)
    commands = [line for b in blocks for line in b.splitlines() if line.strip()]
    assert commands == ["make run", "make test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "\nmake test\n" in ci
