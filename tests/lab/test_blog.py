"""The blog lab web (lab/blog.py): personal blogs built from labelled documents."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli import cli
from crawler import HUB, ITEM, parse_html
from lab.blog import build_blog
from lab.builder import url_to_file
from lab.corpus import Doc
from lab.truth import Truth
from tests.lab.test_academic import SENTENCES
from tests.lab.test_academic import docs as english_docs

KEYWORDS_ZH = {
    "sports": ("足球", "国安", "中超"),
    "finance": ("股市", "银行", "利率"),
    "tech": ("手机", "芯片", "网络"),
}


def chinese_docs(per_category: int = 20) -> list[Doc]:
    """Headlines with keywords and no text, as most of the Chinese corpus is."""
    return [
        Doc(f"t:{c}{i}", c, f"第{i}条{c}新闻的标题在这里写得足够长", words, "", "zh")
        for c, words in KEYWORDS_ZH.items()
        for i in range(per_category)
    ]


def served(web: Path, url: str) -> bytes:
    host, rel = url_to_file(url)
    return (web / "sites" / host / rel).read_bytes()


def test_the_same_seed_builds_the_same_web_and_the_truth_matches_what_is_served(
    tmp_path: Path,
) -> None:
    first = build_blog(english_docs(), tmp_path / "a", lang="en", seed=3, sites=3, articles=30)
    second = build_blog(english_docs(), tmp_path / "b", lang="en", seed=3, sites=3, articles=30)
    assert first == second
    assert (tmp_path / "a" / "truth.jsonl").read_bytes() == (
        tmp_path / "b" / "truth.jsonl"
    ).read_bytes()
    assert first["layout"] == "blog" and first["lang"] == "en"
    truth = Truth.load(tmp_path / "a")
    assert len(truth.records) == first["pages"]
    posts = [u for u in truth.records if truth.is_item(u)]
    assert len(posts) == first["articles"] and truth.relevant_items("sports")
    # every post is reachable from the first blog's home (its lists, sidebar and blogroll)
    assert set(posts) <= truth.reachable([str(first["seeds"]["home"])])  # type: ignore[index]
    # each post's links in the graph are the ones its page carries
    post = posts[0]
    page = parse_html(served(tmp_path / "a", post), post)
    assert {link.url for link in page.links} >= set(truth.graph[post]) - {post}


def test_every_link_on_a_blog_leads_to_a_page_it_serves(tmp_path: Path) -> None:
    """The manifest says the web has no dead links: every tag a post names has its list
    (a tag of one post too, as on any blog), and so has every other link between its pages."""
    for lang, docs in (("en", english_docs()), ("zh", chinese_docs())):
        web = tmp_path / lang
        manifest = build_blog(docs, web, lang=lang, seed=5, sites=3, articles=30)
        assert manifest["dead_links"] == 0
        hosts = {host.name for host in (web / "sites").iterdir()}
        truth = Truth.load(web)
        dead = {
            link.url
            for url in truth.records
            for link in parse_html(served(web, url), url).links
            if url_to_file(link.url)[0] in hosts
            and not (web / "sites").joinpath(*url_to_file(link.url)).is_file()
        }
        assert not dead, sorted(dead)[:5]


def test_posts_are_items_and_every_list_a_hub(tmp_path: Path) -> None:
    """The page kinds on a blog: posts (long English ones, short Chinese ones at a blog
    engine's permalinks) are items; home, its older pages, categories, tags, months and the
    about page are hubs."""
    for lang, docs in (("en", english_docs()), ("zh", chinese_docs())):
        web = tmp_path / lang
        build_blog(docs, web, lang=lang, seed=5, sites=4, articles=40)
        truth = Truth.load(web)
        wrong = [
            (r["kind"], url)
            for url, r in truth.records.items()
            if (parse_html(served(web, url), url).kind == ITEM) != truth.is_item(url)
        ]
        assert len(wrong) <= 0.05 * len(truth.records), wrong[:10]
        for url, record in truth.records.items():
            if record["kind"] in ("home", "channel", "special"):
                assert parse_html(served(web, url), url).kind == HUB, url


def test_the_build_command_makes_a_blog_web_in_either_language(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    labels = {"sports": "sport", "finance": "business", "ent": "entertainment"}
    rows = [
        f"{labels.get(c, c)}\tStory {i} of {c}\t{t * 4}"
        for c, t in SENTENCES.items()
        for i in range(12)
    ]
    (corpus / "bbc.en.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    runner = CliRunner()
    out = tmp_path / "web"
    base = ["lab", "build", "--corpus", str(corpus), "--out", str(out), "--layout", "blog"]
    built = runner.invoke(cli, [*base, "--lang", "en", "--sites", "2", "--articles", "20"])
    assert built.exit_code == 0, built.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert json.loads(built.stdout)["layout"] == "blog" == manifest["layout"]
    assert Truth.load(out).records[manifest["seeds"]["home"]]["kind"] == "home"
    for option in (["--urls", "flat"], ["--no-stock-lines"]):
        mixed = runner.invoke(cli, [*base, "--lang", "en", *option])
        assert mixed.exit_code != 0 and "shape the news web" in mixed.output, option
