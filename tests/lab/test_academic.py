"""The academic lab web (lab/academic.py): universities' sites built from labelled stories."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli import cli
from crawler import HUB, ITEM, parse_html
from lab.academic import build_academic
from lab.builder import url_to_file
from lab.corpus import Doc
from lab.truth import Truth

SENTENCES = {
    "sports": "Chelsea beat Arsenal at Stamford Bridge. The striker scored twice. The manager "
    "praised the defence. Fans sang until the end. The goalkeeper made three saves. ",
    "finance": "Shares rose on the stock market. The bank raised its rates. Investors were "
    "calm. Profits grew in the third quarter. The economy added jobs. ",
    "tech": "The new phone runs a faster chip. Software updates arrive monthly. The network "
    "covers more towns. Gamers tried the console. Users praised the battery. ",
    "politics": "The minister faced questions in parliament. Voters head to the polls. The "
    "party launched its manifesto. Critics attacked the plan. The vote was close. ",
    "ent": "The film topped the box office. The singer released an album. Critics praised "
    "the actor. The festival opened in the city. Tickets sold out in hours. ",
}


def docs(per_category: int = 12) -> list[Doc]:
    out = []
    for category, text in SENTENCES.items():
        for i in range(per_category):
            out.append(
                Doc(f"t:{category}{i}", category, f"Story {i} of {category}", (), text * 4, "en")
            )
    return out


def page_kind(web: Path, url: str) -> str:
    host, rel = url_to_file(url)
    return parse_html((web / "sites" / host / rel).read_bytes(), url).kind


def test_the_same_seed_builds_the_same_web_and_the_truth_matches_what_is_served(
    tmp_path: Path,
) -> None:
    first = build_academic(docs(), tmp_path / "a", seed=3, sites=2, articles=40)
    second = build_academic(docs(), tmp_path / "b", seed=3, sites=2, articles=40)
    assert first == second
    assert (tmp_path / "a" / "truth.jsonl").read_bytes() == (
        tmp_path / "b" / "truth.jsonl"
    ).read_bytes()
    assert first["layout"] == "academic" and first["lang"] == "en"
    truth = Truth.load(tmp_path / "a")
    assert len(truth.records) == first["pages"]
    items = [u for u in truth.records if truth.is_item(u)]
    assert len(items) == first["articles"]
    # football stories (by the judge's club and player names) and their lectures are on the topic
    football = [u for u in items if truth.relevant(u, "football")]
    assert football and all(truth.relevant(u, "sports") for u in football)
    seed = str(first["seeds"]["sports"])  # type: ignore[index]
    assert truth.records[seed]["kind"] == "channel"
    assert set(football) <= truth.reachable([seed])  # every story is reachable from the seed


def test_course_and_lecture_pages_are_items_and_the_lists_hubs(tmp_path: Path) -> None:
    build_academic(docs(), tmp_path, seed=1, sites=2, articles=40)
    truth = Truth.load(tmp_path)
    course = next(u for u in truth.records if u.endswith("/") and "/courses/ses" in u)
    lecture = course + "lecture1.html"
    assert truth.is_item(course) and truth.is_item(lecture)
    assert page_kind(tmp_path, course) == ITEM
    assert page_kind(tmp_path, lecture) == ITEM
    for hub in (course.rsplit("/", 2)[0] + "/", course + "syllabus.html"):
        assert not truth.is_item(hub) and page_kind(tmp_path, hub) == HUB
    # the navigation bar is in the link graph (the oracle and recall follow it)
    assert any(u.endswith("/dept/sport-science/") for u in truth.graph[lecture])


def test_the_build_command_makes_an_academic_web_and_refuses_chinese(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    labels = {"sports": "sport", "finance": "business", "ent": "entertainment"}
    rows = [f"{labels.get(d.category, d.category)}\t{d.title}\t{d.body}" for d in docs()]
    (corpus / "bbc.en.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    runner = CliRunner()
    out = tmp_path / "web"
    base = ["lab", "build", "--corpus", str(corpus), "--out", str(out), "--layout", "academic"]
    built = runner.invoke(cli, [*base, "--lang", "en", "--sites", "2", "--articles", "30"])
    assert built.exit_code == 0, built.output
    assert json.loads(built.stdout)["layout"] == "academic"
    assert json.loads((out / "manifest.json").read_text())["seeds"]["home"].endswith(".test/")
    refused = runner.invoke(cli, [*base, "--lang", "zh"])
    assert refused.exit_code != 0 and "academic web is English" in refused.output
    mixed = runner.invoke(cli, [*base, "--lang", "en", "--titles", "plain"])
    assert mixed.exit_code != 0 and "shape the news web" in mixed.output
