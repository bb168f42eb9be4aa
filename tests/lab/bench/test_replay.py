"""`timelypush bench replay`: crawls kept by `bench match --keep` are judged again as
`bench match` judges them, without crawling."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from crawler.judgment import JUDGE_DEFAULTS, SENSITIVITY


def test_a_kept_crawl_is_judged_again_as_bench_match_judged_it(
    small_web: Path, tmp_path: Path
) -> None:
    from app.cli import cli

    runner = CliRunner()
    kept, out = tmp_path / "kept", tmp_path / "out"
    web = ["--web", str(small_web), "--pages", "60"]
    matched = runner.invoke(
        cli, ["bench", "match", *web, "--keep", str(kept), "--out", str(out / "match")]
    )
    assert matched.exit_code == 0, matched.output
    assert sorted(p.name for p in kept.iterdir()) == [
        f"{small_web.name}.football.0.crawl.pickle",
        f"{small_web.name}.sports.0.crawl.pickle",
    ]
    replayed = runner.invoke(
        cli, ["bench", "replay", str(kept), "--workers", "1", "--out", str(out / "replay")]
    )
    assert replayed.exit_code == 0, replayed.output
    assert "[2/2]" in replayed.output  # progress, one line per kept crawl
    report = json.loads((out / "replay" / "replay.json").read_text(encoding="utf-8"))
    runs = {run["topic"]: run for run in report["crawls"]}
    assert set(runs) == {"sports", "football"}
    assert "after_feedback" in runs["football"] and "after_feedback" not in runs["sports"]
    # the same pages judged the same way: bench match's own replay at the default threshold
    default = next(k for k, v in SENSITIVITY.items() if v == JUDGE_DEFAULTS["threshold"])
    match = json.loads((out / "match" / "match.json").read_text(encoding="utf-8"))
    for run in match["webs"][0]["runs"]:
        assert runs[run["topic"]]["model"] == {
            k: run["sensitivity"][default][k] for k in ("precision", "recall", "f1", "pushed")
        }
    assert runs["sports"]["model"]["pushed"] > 0


def test_a_folder_without_kept_crawls_is_refused(tmp_path: Path) -> None:
    from app.cli import cli

    result = CliRunner().invoke(cli, ["bench", "replay", str(tmp_path)])
    assert result.exit_code == 2
    assert "no kept crawls" in result.output
