"""The English lab web (BBC articles): same structure as the Chinese web, other URL shapes,
its own football judge, served by the same proxy."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from lab.builder import build, url_to_file
from lab.corpus import Doc
from lab.judge import is_about, is_football
from lab.server import LabServer, load_web, web_language
from tests.lab.test_builder import digest, truth

CHELSEA_REPORT = (
    "Chelsea 2-0 Arsenal",
    "Didier Drogba and Frank Lampard scored as Chelsea moved eight points clear at the top. "
    "Jose Mourinho's side dominated from the start at Stamford Bridge and Petr Cech was rarely "
    "troubled. Thierry Henry had Arsenal's best chance but shot wide after the break.",
)
RUGBY_STORY = (
    "Robinson ready for difficult task",
    "England captain Jason Robinson says his side face a difficult task against Wales in the "
    "Six Nations. The full-back, who scored two tries against Italy, said the coach had asked "
    "for a better kicking game from the fly-half. Michael Owen will lead Wales.",
)


@pytest.fixture(scope="module")
def en_web(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("en-web")
    build(shared_data / "corpus", out, seed=7, sites=4, articles=120, lang="en")
    return out


def manifest(out: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((out / "manifest.json").read_text("utf-8"))
    return data


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def test_football_judge_reads_clubs_and_players_not_the_word_football() -> None:
    chelsea = Doc("bbc:x1", "sports", *CHELSEA_REPORT[:1], (), CHELSEA_REPORT[1], "en")
    rugby = Doc("bbc:x2", "sports", *RUGBY_STORY[:1], (), RUGBY_STORY[1], "en")
    assert "football" not in " ".join(CHELSEA_REPORT).lower()
    assert is_football(chelsea)
    assert not is_football(rugby)
    tennis = Doc(
        "bbc:x3",
        "sports",
        "Philippoussis doubt over Open bid",
        (),
        "The groin injury is more common in Australian Rules football, the Hopman Cup doctor "
        "said. Philippoussis will miss the Australian Open, his tennis coach confirmed.",
        "en",
    )
    assert not is_football(tennis)
    business = Doc("bbc:x4", "finance", "Glazer bid for Man Utd", (), "Old Trafford shares", "en")
    assert not is_football(business)


def test_topics_are_named_in_either_language() -> None:
    assert is_about("sports", False, "sports") and is_about("sports", False, "体育")
    assert is_about("sports", False, "sport")
    assert is_about("sports", True, "football") and is_about("sports", True, "足球")
    assert not is_about("sports", False, "football") and not is_about("sports", False, "足球")
    assert not is_about("finance", False, "体育")
    assert is_about("finance", False, "财经") and is_about("finance", False, "business")


def test_english_web_has_the_chinese_webs_page_kinds(en_web: Path) -> None:
    records = truth(en_web)
    assert manifest(en_web)["lang"] == "en" and web_language(en_web) == "en"
    kinds = {r["kind"] for r in records}
    assert {"home", "channel", "list", "article", "special", "static", "tag"} <= kinds
    articles = [r for r in records if r["kind"] == "article"]
    assert all(str(r["source"]).startswith("bbc:") for r in articles)
    sports = [r for r in articles if r["category"] == "sports"]
    football = [r for r in sports if r["football"]]
    assert 0 < len(football) < len(sports) < len(articles) / 2
    assert not any(r["football"] for r in articles if r["category"] != "sports")
    tunnels = [r for r in records if r["tunnel"]]
    assert tunnels and all(r["category"] != "sports" for r in tunnels)


def test_tag_pages_are_hubs_that_never_reveal_the_football_cluster(en_web: Path) -> None:
    records = {str(r["url"]): r for r in truth(en_web)}
    graph = {
        row["url"]: row["links"]
        for row in map(json.loads, (en_web / "graph.jsonl").read_text("utf-8").splitlines())
    }
    tags = [u for u, r in records.items() if r["kind"] == "tag"]
    assert tags
    homes = {u for u, r in records.items() if r["kind"] == "home"}
    assert any(t in graph[h] for h in homes for t in tags)
    for tag in tags:
        items = [u for u in graph[tag] if records.get(u, {}).get("kind") == "article"]
        assert len([u for u in items if tag in graph[u]]) >= 3  # its stories link back
    cluster = {u for u, r in records.items() if r["cluster"]}
    assert cluster
    for source, links in graph.items():
        for target in links:
            if target in cluster and source not in cluster:
                assert records[source]["tunnel"] and records[target]["kind"] == "special"


def test_english_pages_are_english_and_every_link_resolves(en_web: Path) -> None:
    records = {str(r["url"]): r for r in truth(en_web)}
    dead = 0
    for url, record in records.items():
        host, rel = url_to_file(url)
        html = (en_web / "sites" / host / rel).read_text("utf-8")
        assert '<html lang="en-GB">' in html and not re.search(r"[\u4e00-\u9fff]", html)
        if record["kind"] == "article":
            assert "<article" in html and html.count("<p>") >= 2
        parser = _Links()
        parser.feed(html)
        for href in parser.hrefs:
            dead += href not in records
    graph = [json.loads(line) for line in (en_web / "graph.jsonl").read_text().splitlines()]
    missing = {t for row in graph for t in row["links"] if t not in records}
    assert dead and missing and len(missing) <= int(str(manifest(en_web)["dead_links"]))


def test_url_shapes_differ_between_portals_and_from_the_chinese_web(en_web: Path) -> None:
    articles = [str(r["url"]) for r in truth(en_web) if r["kind"] == "article"]
    shapes = {
        "dated": r"^http://www\.[^/]+/20\d\d/\d\d/\d\d/[a-z0-9-]+-\d+\.html$",
        "numeric": r"^http://news\.[^/]+/news/[a-z]+/\d+$",
        "slug after id": r"^http://[a-z]+\.[^/]+/story/\d+/[a-z0-9-]+$",
        "query id": r"^http://www\.[^/]+/article\.php\?id=\d+$",
    }
    for name, pattern in shapes.items():
        assert any(re.match(pattern, u) for u in articles), name
    assert all(re.match("|".join(shapes.values()), u) for u in articles)
    assert not any(u.endswith(".shtml") for u in articles)


def test_same_seed_same_english_web(shared_data: Path, tmp_path: Path) -> None:
    corpus = shared_data / "corpus"
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    build(corpus, a, seed=1, sites=2, articles=40, lang="en")
    build(corpus, b, seed=1, sites=2, articles=40, lang="en")
    build(corpus, c, seed=7, sites=2, articles=40, lang="en")
    assert digest(a) == digest(b) != digest(c)


async def test_english_pages_are_served_including_query_urls(en_web: Path) -> None:
    records = {str(r["url"]): r for r in truth(en_web)}
    by_id, other_id = [u for u, r in records.items() if "?id=" in u and r["kind"] == "article"][:2]
    listing = next(u for u, r in records.items() if "page=1&section=sport" in u)
    host, rel = url_to_file(by_id)
    stored = (en_web / "sites" / host / rel).read_bytes()
    async with (
        LabServer(load_web(en_web)) as server,
        httpx.AsyncClient(proxy=server.url, trust_env=False, timeout=10) as client,
    ):
        home = await client.get("http://www.lab-herald.test/")
        story = await client.get(by_id)
        other = await client.get(other_id)  # same path, another query: another page
        unknown = await client.get(by_id.replace("?id=", "?id=0"))
        page2 = await client.get(listing)
        section = await client.get(listing.replace("page=1&", ""))
        async with httpx.AsyncClient(base_url=server.url, trust_env=False) as direct:
            origin = await direct.get("/" + rel.split("/")[-1], headers={"Host": host})
    assert home.status_code == story.status_code == page2.status_code == 200
    assert "The Daily Herald" in home.text
    assert story.content == origin.content == stored and b'class="headline"' in stored
    other_host, other_rel = url_to_file(other_id)
    assert other.content == (en_web / "sites" / other_host / other_rel).read_bytes() != stored
    assert unknown.status_code == 404
    assert "page 1" in page2.text and section.status_code == 200 and "Sport news" in section.text


def test_cli_builds_the_english_web_and_refuses_an_unknown_language(
    shared_data: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from app.cli import cli

    corpus = str(shared_data / "corpus")
    args = ["lab", "build", "--corpus", corpus, "--out", str(tmp_path / "en"), "--lang", "en"]
    result = CliRunner().invoke(cli, [*args, "--sites", "2", "--articles", "40"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["lang"] == "en"
    assert (tmp_path / "en" / "sites" / "www.lab-herald.test" / "index.html").is_file()
    bad = ["lab", "build", "--corpus", corpus, "--out", str(tmp_path / "fr"), "--lang", "fr"]
    refused = CliRunner().invoke(cli, bad)
    assert refused.exit_code != 0 and "--lang" in refused.output
    assert not (tmp_path / "fr").exists()
