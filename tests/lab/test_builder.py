"""The lab builder: deterministic, realistic structure, ground truth beside (not inside) the web."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from lab.builder import build
from lab.corpus import Doc
from lab.judge import is_football


def digest(directory: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        h.update(path.relative_to(directory).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def truth(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (out / "truth.jsonl").read_text("utf-8").splitlines()]


def test_same_seed_gives_byte_identical_web(small_corpus: Path, tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    build(small_corpus, a, seed=11, sites=2, articles=60)
    build(small_corpus, b, seed=11, sites=2, articles=60)
    build(small_corpus, c, seed=12, sites=2, articles=60)
    assert digest(a) == digest(b)
    assert digest(a) != digest(c)


def test_ground_truth_lives_beside_the_served_tree(small_web: Path) -> None:
    sites = small_web / "sites"
    assert (small_web / "truth.jsonl").is_file()
    assert not list(sites.rglob("truth.jsonl")) and not list(sites.rglob("*.jsonl"))
    records = truth(small_web)
    kinds = {r["kind"] for r in records}
    assert {"home", "channel", "list", "article", "special", "static"} <= kinds
    assert any(r["category"] == "sports" for r in records)
    assert any(r["football"] for r in records)
    assert sum(r["category"] == "sports" for r in records) < len(records) / 2


def test_every_page_has_title_and_navigation(small_web: Path) -> None:
    for record in truth(small_web):
        host, rel = record["url"].split("/", 3)[2], record["url"].split("/", 3)[3]  # type: ignore[union-attr]
        path = small_web / "sites" / str(host) / (rel or "index.html")
        html = path.read_bytes().decode("gbk" if "sohu" in str(host) else "utf-8")
        assert "<title>" in html and "</title>" in html
        assert f'href="http://www.{record["portal"]}/"' in html


def test_football_cluster_is_reachable_only_through_off_topic_tunnels(small_web: Path) -> None:
    records = {r["url"]: r for r in truth(small_web)}
    graph = {
        row["url"]: row["links"]
        for row in map(json.loads, (small_web / "graph.jsonl").read_text("utf-8").splitlines())
    }
    tunnels = [u for u, r in records.items() if r["tunnel"]]
    assert tunnels and all(records[u]["category"] != "sports" for u in tunnels)
    cluster = {u for u, r in records.items() if r["cluster"]}
    assert cluster and all(records[u]["football"] for u in cluster)
    for source, links in graph.items():
        for target in links:
            if target in cluster and source not in cluster:
                assert records[source]["tunnel"], (source, target)
                assert records[target]["kind"] == "special"


def test_dead_links_point_nowhere(small_web: Path) -> None:
    known = {r["url"] for r in truth(small_web)}
    graph = [json.loads(line) for line in (small_web / "graph.jsonl").read_text().splitlines()]
    dead = {t for row in graph for t in row["links"] if t not in known}
    assert dead
    manifest = json.loads((small_web / "manifest.json").read_text())
    assert manifest["dead_links"] >= len(dead)


def test_football_judge_uses_labels_and_an_independent_term_list() -> None:
    assert is_football(Doc("x:1", "sports", "上港亚冠输球遭球迷吐槽，中超还要看恒大"))
    assert is_football(Doc("x:2", "sports", "国米新星再惊艳 蓝黑天才踏上昔日轨迹"))
    assert not is_football(Doc("x:3", "sports", "骑士横扫猛龙，詹姆斯连续八年打进东部决赛"))
    assert not is_football(Doc("x:4", "finance", "恒大地产11月在港挂牌"))


def test_football_judge_is_not_fooled_by_basketball_positions_or_word_parts() -> None:
    # positions and places basketball shares, and a football word inside a basketball story
    assert not is_football(Doc("x:5", "sports", "骑士前锋穆恩因腹部伤病休战3周"))
    assert not is_football(Doc("x:6", "sports", "火箭回顾之后卫篇：阿泰未达预期，禁区无人"))
    assert not is_football(Doc("x:7", "sports", "湖人首要目标绝非追马刺，中场休息时科比说打小牛"))
    # 一方 / 人和 / 球王 as parts of ordinary words
    assert not is_football(Doc("x:8", "sports", "一方面个人和集体都重要，街球王表演秀继续"))
    # a football story that mentions basketball once is still football
    story = "恒大门将曾诚扑点救主，中超第10轮恒大战胜国安，赛后看NBA"
    assert is_football(Doc("x:9", "sports", story))


def test_other_titles_change_only_the_articles_titles(small_corpus: Path, tmp_path: Path) -> None:
    webs = {kind: tmp_path / kind for kind in ("section", "site", "plain")}
    for kind, out in webs.items():
        build(small_corpus, out, seed=3, sites=2, articles=40, titles=kind)
    for name in ("truth.jsonl", "graph.jsonl"):
        assert len({(out / name).read_bytes() for out in webs.values()}) == 1
    for kind, out in webs.items():
        manifest = json.loads((out / "manifest.json").read_text("utf-8"))
        assert manifest.get("titles", "section") == kind
    articles = [r for r in truth(webs["section"]) if r["kind"] == "article"]
    articles = [r for r in articles if "sohu" not in str(r["url"])]  # utf-8 portals
    assert articles
    for record in articles[:20]:
        rel = str(record["url"]).split("/", 3)
        section, site, plain = (
            (out / "sites" / rel[2] / rel[3]).read_text("utf-8").split("<title>")[1].split("<")[0]
            for out in webs.values()
        )
        # the same headline; after it the section and portal names, the portal's, or nothing
        assert section.startswith(plain + "_") and section.count("_") >= 2
        assert site.startswith(plain + "_") and section.endswith(site[len(plain) :])
        assert len(site) < len(section)


def test_flat_urls_name_no_section_and_change_nothing_else(
    small_corpus: Path, tmp_path: Path
) -> None:
    from crawler.urls import directories

    webs = {urls: tmp_path / urls for urls in ("channels", "flat")}
    for urls, out in webs.items():
        build(small_corpus, out, seed=3, sites=2, articles=40, urls=urls)
    records = {urls: truth(out) for urls, out in webs.items()}
    assert json.loads((webs["flat"] / "manifest.json").read_text("utf-8"))["urls"] == "flat"
    assert "urls" not in json.loads((webs["channels"] / "manifest.json").read_text("utf-8"))

    def shape(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
        return sorted((r["kind"], r["category"], r["football"], r["portal"]) for r in rows)

    assert shape(records["flat"]) == shape(records["channels"])  # the same pages
    flat = records["flat"]
    assert len({str(r["url"]).split("/")[2] for r in flat}) == 2  # one host per portal
    articles = [str(r["url"]) for r in flat if r["kind"] == "article"]
    # every article's URL reads the same whatever its channel: no section in it
    assert {tuple(directories(u)[1]) for u in articles} == {("a",)}
    channels = {str(r["url"]) for r in flat if r["kind"] == "channel"}
    assert len(channels) > 4 and all(directories(u + "x")[1] for u in channels)
    with pytest.raises(ValueError, match="urls"):
        build(small_corpus, tmp_path / "en", seed=3, lang="en", urls="flat")


def test_a_web_without_stock_lines_differs_only_in_headline_only_stories(
    small_corpus: Path, tmp_path: Path
) -> None:
    from lab.render import _FILLER

    webs = {stock: tmp_path / str(stock) for stock in (True, False)}
    for stock, out in webs.items():
        build(small_corpus, out, seed=3, sites=2, articles=40, stock=stock)
    for name in ("truth.jsonl", "graph.jsonl"):
        assert len({(out / name).read_bytes() for out in webs.values()}) == 1
    assert json.loads((webs[False] / "manifest.json").read_text("utf-8"))["stock_lines"] is False
    assert "stock_lines" not in json.loads((webs[True] / "manifest.json").read_text("utf-8"))

    def decoded(body: bytes) -> str:
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:  # a portal that serves GBK
            return body.decode("gbk")

    def texts(out: Path) -> dict[str, str]:
        return {
            p.relative_to(out).as_posix(): decoded(p.read_bytes())
            for p in (out / "sites").rglob("*")
            if p.is_file()
        }

    with_stock, without = texts(webs[True]), texts(webs[False])
    assert with_stock.keys() == without.keys()
    changed = [k for k in with_stock if with_stock[k] != without[k]]
    assert changed  # the small corpus has headline-only stories
    for key in changed:
        # the same page but for the stock sentences after the headline and its keywords
        assert any(line in with_stock[key] for line in _FILLER)
        assert not any(line in without[key] for line in _FILLER)
        assert "本文涉及" in without[key] or "<h1" in without[key]
