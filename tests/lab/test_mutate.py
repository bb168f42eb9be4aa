"""A later state of a lab web (lab/mutate.py): the articles moved, and every link to them."""

from __future__ import annotations

import json
from pathlib import Path

from crawler import parse_html
from lab.academic import build_academic
from lab.mutate import _file, changed
from lab.truth import Truth
from tests.lab.test_academic import docs


def _links_lost(web: Path) -> list[str]:
    """The pages of ``web`` whose HTML lacks a link its graph says it has."""
    lost = []
    for line in (web / "graph.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        path = _file(web, row["url"])
        if not path.exists():
            continue
        html = path.read_bytes().decode("utf-8", "replace")
        if not set(row["links"]) <= {link.url for link in parse_html(html, row["url"]).links}:
            lost.append(row["url"])
    return lost


def _check(web: Path, out: Path) -> None:
    before = Truth.load(web)
    new = changed(web, out, share=0.2)
    after = Truth.load(out)
    assert new and all(u not in before.records and u in after.records for u in new)
    assert all(_file(out, u).exists() for u in new)
    assert _links_lost(web) == []
    # every page still links what it linked, the moved articles at their new URLs
    assert _links_lost(out) == []


def test_a_changed_academic_web_keeps_every_link(tmp_path: Path) -> None:
    # its courses are articles at directory URLs (/courses/ses491/): one moves to a directory
    # of its own, and the pages that linked it keep their other links
    build_academic(docs(), tmp_path / "web", seed=1, sites=2, articles=40)
    _check(tmp_path / "web", tmp_path / "later")


def test_a_changed_news_web_keeps_every_link(small_web: Path, tmp_path: Path) -> None:
    _check(small_web, tmp_path / "later")
