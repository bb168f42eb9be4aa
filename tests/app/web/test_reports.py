"""The per-concern crawl report: runs, fetched vs matched, harvest chart data, errors."""

from __future__ import annotations

import json
import re

from tests.app.web.factories import make_concern, make_run


def test_report_without_runs(alice_client, db, alice):
    concern = make_concern(db, alice)
    page = alice_client.get(f"/concerns/{concern.id}/report")
    assert page.status_code == 200 and "还没有抓取记录" in page.text
    assert "chart.umd.min.js" not in page.text


def test_report_shows_runs_chart_and_errors(alice_client, db, alice):
    concern = make_concern(db, alice)
    make_run(db, concern, 100, 40, hours_ago=5)
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
    assert "timeout fetching /a" in page.text and "失败" in page.text
    during = json.loads(
        re.search(
            r'<script type="application/json" id="run-data">(.*?)</script>', page.text, re.S
        ).group(1)
    )
    assert during["labels"] == [10, 20, 50] and during["rate"] == [10.0, 20.0, 20.0]
    assert "33.3%" in page.text  # 50 matched of 150 fetched


def test_chart_library_and_license_are_served(client):
    js = client.get("/static/vendor/chartjs/chart.umd.min.js")
    assert js.status_code == 200 and "Chart.js v4" in js.text[:200]
    assert "MIT License" in client.get("/static/vendor/chartjs/LICENSE.md").text
