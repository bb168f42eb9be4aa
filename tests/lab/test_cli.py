"""`timelypush lab …` and `timelypush bench …` come from `lab` when it is there, else an error."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer
from typer.testing import CliRunner

from app.cli import DEVELOPMENT_COMMANDS, add_development_commands, cli


def _root() -> typer.Typer:
    root = typer.Typer(no_args_is_help=True)

    @root.command("version")
    def version() -> None:
        """A command of the product, so the root stays a group."""

    return root


def test_a_source_checkout_has_the_lab_and_bench_commands() -> None:
    runner = CliRunner()
    listed = runner.invoke(cli, ["--help"])
    assert listed.exit_code == 0
    for name in DEVELOPMENT_COMMANDS:
        assert f"\n  {name} " in listed.output, name
    built = runner.invoke(cli, ["lab", "--help"])
    assert built.exit_code == 0 and "build" in built.output and "serve" in built.output
    revisit = runner.invoke(cli, ["bench", "revisit", "--sources", "20", "--days", "3", "--json"])
    assert revisit.exit_code == 0, revisit.output
    assert '"policies"' in revisit.stdout


def test_without_the_lab_package_each_command_says_it_needs_a_checkout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # what an installed wheel looks like: no `lab` to import
    monkeypatch.delitem(sys.modules, "lab.cli", raising=False)
    monkeypatch.setitem(sys.modules, "lab", None)
    root = _root()
    add_development_commands(root)
    runner = CliRunner()
    listed = runner.invoke(root, ["--help"])
    assert listed.exit_code == 0 and "version" in listed.output
    for name in DEVELOPMENT_COMMANDS:
        assert f" {name} " not in listed.output  # not offered
        for args in ([name], [name, "--help"], [name, "build", "--out", "x"]):
            result = runner.invoke(root, args)
            assert result.exit_code == 2, (args, result.output)
            assert result.stdout == ""
            assert result.stderr.startswith(f"error: `timelypush {name}` needs a source checkout")
            assert "Traceback" not in result.output


def test_a_lab_that_cannot_import_what_it_needs_is_not_hidden(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(name: str) -> None:
        raise ModuleNotFoundError("No module named 'scrapy'", name="scrapy")

    monkeypatch.setattr("app.cli.importlib.import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="scrapy"):
        add_development_commands(_root())


def test_the_installed_command_without_lab_exits_with_one_error_line() -> None:
    hide_lab = "import sys; sys.modules['lab'] = None; from app.cli import main; main()"
    for name in DEVELOPMENT_COMMANDS:
        result = subprocess.run(
            [sys.executable, "-c", hide_lab, name, "--help"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert result.returncode == 2, result.stderr
        assert result.stdout == ""
        assert result.stderr.splitlines() == [
            f"error: `timelypush {name}` needs a source checkout of Timely Push (`uv sync`): "
            "the development package `lab` is not installed"
        ]
