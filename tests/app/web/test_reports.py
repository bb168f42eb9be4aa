"""The per-concern crawl report: runs, fetched vs matched, harvest chart data, errors."""

from __future__ import annotations

import json
import re

from tests.app.web.forms import post
from tests.factories import make_concern, make_match, make_run


def test_report_without_runs(alice_client, db, alice):
    concern = make_concern(db, alice)
    path = f"/concerns/{concern.id}/report"
    page = alice_client.get(path)
    assert page.status_code == 200 and "还没有抓取记录" in page.text
    assert "chart.umd.min.js" not in page.text
    # nothing fetched: no rate at all, not 0.0%
    assert re.search(r'id="total-harvest"><div class="num">—<', page.text)
    assert "0.0%" not in page.text
    # the "立即检查" the empty report points to is on the page, and comes back to it
    assert re.search(
        r'<button class="btn" type="submit" id="check-now">立即检查</button>', page.text
    )
    checked = post(alice_client, f"/concerns/{concern.id}/check", {"next": path}, page=path)
    assert checked.status_code == 303 and checked.headers["location"] == path
    assert "已排队" in alice_client.get(path).text


def test_report_shows_runs_chart_and_errors(alice_client, db, alice):
    concern = make_concern(db, alice)
    make_run(db, concern, 100, 40, hours_ago=5)
    for n in range(40):  # the concern's own matches, found during the first run
        make_match(db, concern, n, age_minutes=5 * 60 - 1)
    for n in range(40, 50):  # and during the second
        make_match(db, concern, n, age_minutes=2 * 60 - 1)
    make_run(
        db,
        concern,
        50,
        10,
        hours_ago=2,
        error="timeout fetching /a",
        status="failed",
        harvest=[[10, 1], [20, 4], [50, 10]],
    )
    page = alice_client.get(f"/concerns/{concern.id}/report")
    assert page.status_code == 200
    assert "/static/vendor/chartjs/chart.umd.min.js" in page.text
    data = json.loads(
        re.search(
            r'<script type="application/json" id="harvest-data">(.*?)</script>', page.text, re.S
        ).group(1)
    )
    assert data["fetched"] == [100, 50] and data["matched"] == [40, 10]
    assert data["harvest"] == [40.0, 20.0] and data["names"]["harvest"] == "收获率 (%)"
    assert "网站响应超时。" in page.text and "失败" in page.text  # said, not the crawler's words
    assert '<div class="small muted where">/a</div>' in page.text and "timeout" not in page.text
    during = json.loads(
        re.search(
            r'<script type="application/json" id="run-data">(.*?)</script>', page.text, re.S
        ).group(1)
    )
    assert during["labels"] == [10, 20, 50] and during["rate"] == [10.0, 20.0, 20.0]
    # the latest run's rate counts every follower's matches: it has a name of its own
    assert during["names"]["rate"] == "全站命中率 (%)" and "最近一次抓取中的全站命中率" in page.text
    assert "33.3%" in page.text  # 50 matched of 150 fetched


def test_chart_library_and_license_are_served(client):
    js = client.get("/static/vendor/chartjs/chart.umd.min.js")
    assert js.status_code == 200 and "Chart.js v4" in js.text[:200]
    assert "MIT License" in client.get("/static/vendor/chartjs/LICENSE.md").text


def test_report_counts_the_concerns_own_matches_on_a_shared_site(
    alice_client, bob_client, db, alice, bob
):
    """Alice and Bob follow the same site: one visit, 40 pages matched between them, 3 of them
    Alice's. Her report says 3 (and the 120 pages the visit fetched for everyone)."""
    mine = make_concern(db, alice, keywords="中超")
    theirs = make_concern(db, bob, keywords="足球")
    assert mine.site_id == theirs.site_id
    from datetime import timedelta

    from app.models import utcnow

    for concern in (mine, theirs):  # both followed the site before the visit
        concern.created_at = utcnow() - timedelta(hours=2)
        db.add(concern)
    db.commit()
    make_run(db, mine, 120, 40, hours_ago=1)
    for n in range(3):
        make_match(db, mine, n, age_minutes=59)
    for n in range(37):
        make_match(db, theirs, n, age_minutes=59)
    make_match(db, mine, 99, age_minutes=5)  # after the run: not the run's

    page = alice_client.get(f"/concerns/{mine.id}/report")
    text = re.sub(r"\s+", " ", page.text)
    assert re.search(r'id="total-matched"><div class="num">3<', text), "site-wide count shown"
    assert re.search(r'id="total-fetched"><div class="num">120<', text)
    assert "抓取页数（所有关注者共享）" in text and "本关注命中数" in text
    assert "2.5%" in text  # 3 of 120
    data = json.loads(
        re.search(r'id="harvest-data">(.*?)</script>', page.text, re.S).group(1)  # type: ignore[union-attr]
    )
    assert data["matched"] == [3] and data["fetched"] == [120]
    bobs = bob_client.get(f"/concerns/{theirs.id}/report").text
    assert re.search(r'id="total-matched"><div class="num">37<', re.sub(r"\s+", " ", bobs))


def test_chinese_labels_take_a_full_width_colon(alice_client, db, alice):
    concern = make_concern(db, alice, synonyms="国足")
    concern.blocked_terms = ["彩票"]
    db.add(concern)
    db.commit()
    pages = [alice_client.get(p).text for p in (f"/concerns/{concern.id}/report", "/concerns")]
    text = " ".join(re.sub(r"<[^>]+>", "", page) for page in pages)
    assert "抓取报告：http://" in text and "同义词：" in text and "已删除的词：" in text
    assert "策略：" in text and "下次访问：" in text
    assert not re.search(r"[\u4e00-\u9fff]: ", text), re.findall(r".{6}[\u4e00-\u9fff]: .{6}", text)
    alice.language = "en"
    db.add(alice)
    db.commit()
    english = alice_client.get(f"/concerns/{concern.id}/report").text
    assert "Crawl report: http://" in english and "Synonyms: " in english
