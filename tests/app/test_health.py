from __future__ import annotations

from fastapi.testclient import TestClient

from app.main import create_app


def test_healthz_reports_database(settings_env: None) -> None:
    with TestClient(create_app()) as client:
        resp = client.get("/healthz")
    assert resp.status_code == 200
    body = resp.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] is True
    assert "redis" not in body["checks"]


def test_healthz_reports_unreachable_redis(settings_env: None, monkeypatch) -> None:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_REDIS_URL", "redis://127.0.0.1:1/0")
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        resp = client.get("/healthz")
    assert resp.status_code == 503
    assert resp.json()["checks"]["redis"]["ok"] is False


def test_healthz_reports_reachable_redis(settings_env: None, redis_url: str, monkeypatch) -> None:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_REDIS_URL", redis_url)
    get_settings.cache_clear()
    with TestClient(create_app()) as client:
        resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.json()["checks"]["redis"]["ok"] is True


def test_healthz_does_not_echo_exception_text(settings_env: None, monkeypatch) -> None:
    from app import main

    def broken() -> object:
        raise RuntimeError("password=hunter2 host=db.internal")

    monkeypatch.setattr(main, "get_engine", broken)
    with TestClient(create_app()) as client:
        resp = client.get("/healthz")
    assert resp.status_code == 503
    assert resp.json()["checks"]["database"] == {"ok": False, "detail": "unavailable"}
    assert "hunter2" not in resp.text and "db.internal" not in resp.text


def test_metrics_answer_the_operator_only(settings_env: None, monkeypatch) -> None:
    """Without a token only the machine itself reads /metrics; with one, a scraper bearing it."""
    from app.core.config import get_settings

    with TestClient(create_app(), client=("203.0.113.9", 50000)) as outside:
        assert outside.get("/metrics").status_code == 404
    with TestClient(create_app(), client=("127.0.0.1", 50000)) as local:
        assert "timelypush_" in local.get("/metrics").text
    monkeypatch.setenv("TIMELYPUSH_METRICS_TOKEN", "scrape-me")
    get_settings.cache_clear()
    try:
        with TestClient(create_app(), client=("203.0.113.9", 50000)) as scraper:
            assert scraper.get("/metrics").status_code == 404
            wrong = {"Authorization": "Bearer nope"}
            assert scraper.get("/metrics", headers=wrong).status_code == 404
            right = {"Authorization": "Bearer scrape-me"}
            assert "timelypush_" in scraper.get("/metrics", headers=right).text
    finally:
        get_settings.cache_clear()
