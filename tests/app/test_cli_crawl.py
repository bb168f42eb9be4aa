"""`timelypush crawl` against a real HTTP server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli
from tests.crawler.server import serve_html

TITLES = ("天气预报：本周末全市晴转多云", "足球 中超 战报：国安客场二比一取胜")
BODY = (
    "记者从现场获悉，本场比赛观众超过三万人，双方上半场均有多次射门机会。"
    "赛后双方主教练都表示，这场比赛的结果对本赛季接下来的走势非常重要。"
)
PAGES = {
    "/": "<html><head><title>体育首页</title>"
    '<meta name="keywords" content="足球,体育"></head><body>'
    + " ".join(f'<a href="/p{i}">{"中超 战报" if i % 2 else "天气"}</a>' for i in range(8))
    + "</body></html>",
    **{
        f"/p{i}": f"<html><head><title>{TITLES[i % 2]}</title></head><body>"
        f"<h1>{TITLES[i % 2]}</h1><p>第{i}篇。{BODY}</p></body></html>"
        for i in range(8)
    },
}


@pytest.fixture
def server() -> Iterator[str]:
    with serve_html(PAGES) as web:
        yield web.url("/")


@pytest.fixture(autouse=True)
def _settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


BASE_ARGS = ["--allow-private", "--delay", "0", "--concurrency", "1", "--per-host", "1"]


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("fetch_process", ["off", "on"])
def test_crawl_writes_jsonl_to_stdout_in_fetch_order(server: str, fetch_process: str) -> None:
    args = ["crawl", server, "-k", "足球，中超、足球", "--jsonl", "-", *BASE_ARGS]
    result = CliRunner().invoke(cli, [*args, "--fetch-process", fetch_process])
    assert result.exit_code == 0, result.output
    everything = lines(result.stdout)
    rows = [r for r in everything if not r.get("final")]
    assert len(rows) == 9
    for key in ("url", "final_url", "status", "depth", "relevance", "priority", "matched", "title"):
        assert key in rows[0]
    assert rows[0]["url"] == server and rows[0]["depth"] == 0
    # the links whose anchors mention 中超 are fetched before the weather pages
    assert [r["title"] for r in rows[1:5]] == [TITLES[1]] * 4
    assert all(r["matched"] for r in rows[1:5]) and not any(r["matched"] for r in rows[5:])
    # the home page is a hub: not pushed, whatever its keywords; every row says why
    assert rows[0]["kind"] == "hub" and not rows[0]["matched"]
    assert all(r["kind"] == "item" and 0 <= r["probability"] <= 1 for r in rows[1:])
    # the weather pages were judged before the model knew enough: their rows say the decision
    # waits, and the end of the visit gives it in one more row each, after every fetch
    assert all(r.get("provisional") for r in rows[5:]) and not rows[0].get("provisional")
    assert everything[:9] == rows
    finals = everything[9:]
    assert sorted(r["url"] for r in finals) == sorted(r["url"] for r in rows[5:])
    assert all(r["final"] and not r["matched"] and r["kind"] == "item" for r in finals)
    # the last row of a URL holds its decision
    last = {r["url"]: r["matched"] for r in everything}
    assert sum(last.values()) == 4
    assert "pages 9, matched 4, errors 0" in result.stderr
    # the pause at the end of the visit is announced before the summary: the four weather pages
    # are judged again there (the football ones were pushed as they came)
    said = result.stderr.splitlines()
    deciding = said.index("deciding on 4 pages at the end of the visit")
    assert deciding < next(i for i, line in enumerate(said) if line.startswith("pages 9,"))


def test_keywords_given_option_by_option_all_count(server: str) -> None:
    """``-k 足球 -k 网球`` is two keywords, as ``-k 足球,网球`` is (the last alone was kept, and
    a crawl for 足球 and 网球 looked for 网球 only); so are repeated synonyms and excludes."""
    for words in (["-k", "网球", "-k", "足球"], ["-k", "足球", "-k", "网球"], ["-k", "足球,网球"]):
        args = ["crawl", server, *words, "--jsonl", "-", *BASE_ARGS]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert "pages 9, matched 4, errors 0" in result.stderr, words
    # an exclude word given on its own after another is not dropped either
    args = ["crawl", server, "-k", "足球", "--exclude", "国安", "--exclude", "网球", "--jsonl", "-"]
    result = CliRunner().invoke(cli, [*args, *BASE_ARGS])
    assert result.exit_code == 0, result.output
    assert "matched 0," in result.stderr


def test_strategy_params_file_output_and_resume(server: str, tmp_path: Path) -> None:
    out, ckpt = tmp_path / "out.jsonl", tmp_path / "crawl.json"
    args = ["crawl", server, "-k", "足球", "--strategy", "bfs", "--jsonl", str(out), *BASE_ARGS]
    first = CliRunner().invoke(cli, [*args, "--max-pages", "4", "--checkpoint", str(ckpt)])
    assert first.exit_code == 0, first.output
    rows = lines(out.read_text())
    # each run ends its visit: the pages whose decision waited get it in a final row
    assert len([r for r in rows if not r.get("final")]) == 4
    waited = {r["url"] for r in rows if r.get("provisional")}
    assert waited == {f"{server}p0", f"{server}p2"}  # the weather pages, before any model
    assert {r["url"] for r in rows if r.get("final")} == waited
    assert json.loads(ckpt.read_text())["fetched"] == 4
    second = CliRunner().invoke(cli, [*args, "--max-pages", "100", "--checkpoint", str(ckpt)])
    assert second.exit_code == 0, second.output
    urls = [r["url"] for r in lines(out.read_text()) if not r.get("final")]
    assert len(urls) == 9 and len(set(urls)) == 9
    assert urls == [server] + [f"{server}p{i}" for i in range(8)]  # breadth-first, link order


def test_bad_input_is_reported(server: str) -> None:
    result = CliRunner().invoke(
        cli, ["crawl", server, "-k", "足球", "--strategy", "dfs", *BASE_ARGS]
    )
    assert result.exit_code == 2 and "unknown strategy" in result.stderr
    result = CliRunner().invoke(
        cli, ["crawl", server, "-k", "足球", "--param", "gamma", *BASE_ARGS]
    )
    assert result.exit_code == 2
    result = CliRunner().invoke(
        cli, ["crawl", server, "-k", "足球", "--fetch-process", "maybe", *BASE_ARGS]
    )
    assert result.exit_code == 2 and "auto, on, off" in result.stderr


def test_the_last_row_of_a_redirected_url_holds_its_decision() -> None:
    # the home page links to /moved, which redirects to a weather page: judged before any
    # model, its decision waits for the end of the visit
    pages = {**PAGES, "/": PAGES["/"].replace('href="/p0"', 'href="/moved"')}
    with serve_html(pages, redirects={"/moved": "/p0"}) as web:
        args = ["crawl", web.url("/"), "-k", "足球，中超", "--jsonl", "-", *BASE_ARGS]
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    rows = lines(result.stdout)
    moved = [r for r in rows if r["url"] == web.url("/moved")]
    assert [r.get("final", False) for r in moved] == [False, True]
    assert moved[0]["provisional"] and moved[0]["final_url"] == web.url("/p0")
    assert moved[1]["final_url"] == web.url("/p0") and not moved[1]["matched"]
    last = {r["url"]: r for r in rows}
    assert all(not r.get("provisional") for r in last.values())  # every decision is made
