"""crawl_site: one crawl for many concerns, matches once ever, revisit state, locks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session, func, select

from app.models import Concern, CrawlRun, Match, Page, Site
from tests.app.loopback_site import NewsSite, make_concerns


@pytest.fixture
def crawl_env(settings_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from app.core.config import get_settings

    monkeypatch.setenv("TIMELYPUSH_URL_ALLOWLIST", "127.0.0.1")
    monkeypatch.setenv("TIMELYPUSH_CRAWL_DELAY", "0")
    monkeypatch.setenv("TIMELYPUSH_REVISIT_POLICY", "seed")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _count(session: Session, model: type, **where: object) -> int:
    stmt = select(func.count()).select_from(model)
    for name, value in where.items():
        stmt = stmt.where(getattr(model, name) == value)
    return int(session.exec(stmt).one())


def test_one_crawl_serves_every_concern_and_matches_once(crawl_env: None, engine) -> None:
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=6)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football, weather) = make_concerns(session, seed, [["足球"], ["天气"]])
        first = crawl_site(site_id)
        assert first["status"] == "ok"
        assert first["pages_new"] == 7  # index + 6 articles
        assert _count(session, Match, concern_id=football) == 3
        assert _count(session, Match, concern_id=weather) == 3
        assert site_server.hits["/news/1.html"] == 1  # one crawl for both concerns

        # the seed answers 304 now: an unchanged visit costs one request
        second = crawl_site(site_id)
        assert second["status"] == "not_modified"
        assert second["changed"] is False

        # a new football article: a changed visit, one new match, nothing doubled
        site_server.add_article(7, football=True)
        third = crawl_site(site_id)
        assert third["status"] == "ok" and third["changed"] is True
        assert _count(session, Match, concern_id=football) == 4
        assert _count(session, Match, concern_id=weather) == 3
        assert _count(session, Page) == 8
        runs = session.exec(select(CrawlRun).order_by(CrawlRun.id)).all()
        assert [r.status for r in runs] == ["ok", "not_modified", "ok"]
        assert runs[0].pages_fetched == 7 and runs[0].pages_matched == 6
        assert "harvest_rate" in runs[0].stats

        site = session.get(Site, site_id)
        session.refresh(site)
        assert site.visits == 3 and site.changes == 2
        # seed policy: 200 ÷1.2 ×1.2 ÷1.2
        assert site.revisit_t_minutes == pytest.approx(200 / 1.2)
        assert site.level == 1
        assert site.next_visit_at is not None and site.etag == f'"v{site_server.version}"'


def test_a_concern_added_to_a_site_already_visited_reads_its_pages(crawl_env: None, engine) -> None:
    from app.models import User
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=6)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (weather,) = make_concerns(session, seed, [["天气"]])
        assert crawl_site(site_id)["status"] == "ok"
        # another user watches the same site for football: the seed answers 304 to the
        # visit, but the pages already there are what this concern has not judged
        other = User(email="second@example.com", password_hash="x")
        session.add(other)
        session.flush()
        football = Concern(
            owner_id=other.id, seed_url=seed, keywords=["足球"], site_id=site_id, max_pages=50
        )
        session.add(football)
        session.commit()
        visit = crawl_site(site_id)
        assert visit["status"] == "ok" and visit["changed"] is False
        assert _count(session, Match, concern_id=football.id) == 3
        assert _count(session, Match, concern_id=weather) == 3
        # judged now: the next unchanged visit costs one request again
        assert crawl_site(site_id)["status"] == "not_modified"


def test_a_concern_added_while_a_visit_runs_gets_the_next_visit_at_once(
    crawl_env: None, engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.models import Delivery, User, utcnow
    from app.services import crawling

    added: list[int] = []
    store = crawling._store

    def store_then_add(engine_, site, scorers, event, state) -> None:  # type: ignore[no-untyped-def]
        store(engine_, site, scorers, event, state)
        if not added:  # the user adds a concern on the site while the visit goes on
            with Session(engine_) as s:
                owner = s.exec(select(User)).first()
                late = Concern(
                    owner_id=owner.id, seed_url=site.seed_url, keywords=["足球"],
                    site_id=site.id, max_pages=50,
                )  # fmt: skip
                s.add(late)
                s.commit()
                added.append(late.id)

    monkeypatch.setattr(crawling, "_store", store_then_add)
    site_server = NewsSite(articles=6)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, _ = make_concerns(session, seed, [["天气"]])
        assert crawling.crawl_site(site_id)["status"] == "ok"
        monkeypatch.setattr(crawling, "_store", store)
        site = session.get(Site, site_id)
        session.refresh(site)
        # the visit did not read the site for it: the next one is due now, not in hours
        assert site.next_visit_at <= utcnow()
        [late] = added
        assert _count(session, Match, concern_id=late) == 0
        owner = session.get(User, session.get(Concern, late).owner_id)
        owner.push_mode, owner.email_verified_at = "instant", utcnow()  # pushes by email
        session.add(owner)
        session.commit()
        visit = crawling.crawl_site(site_id)
        assert visit["status"] == "ok"  # read, though the seed is unchanged
        assert _count(session, Match, concern_id=late) == 3
        # and what it found is its first visit's summary, not three instant pushes
        kinds = {
            d.kind
            for d in session.exec(select(Delivery))
            if set(d.match_ids or [d.match_id])
            & {m.id for m in session.exec(select(Match).where(Match.concern_id == late))}
        }
        assert kinds == {"summary"}
        session.refresh(site)
        assert site.next_visit_at > utcnow()  # then the usual interval


def test_a_concern_deleted_while_its_site_is_read_ends_the_visit(
    crawl_env: None, engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The visit judges a deleted concern no further, and with no concern left it ends at
    its next checkpoint instead of reading the rest of the site for no one."""
    from app.services import crawling

    store = crawling._store

    def store_then_delete(engine_, site, scorers, event, state) -> None:  # type: ignore[no-untyped-def]
        store(engine_, site, scorers, event, state)
        if state.pages_fetched == 5:  # the user deletes the concern while the visit goes on
            with Session(engine_) as s:
                for concern in s.exec(select(Concern)):
                    s.delete(concern)
                s.commit()

    monkeypatch.setattr(crawling, "_store", store_then_delete)
    site_server = NewsSite(articles=45)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, _ = make_concerns(session, seed, [["足球"]])
        visit = crawling.crawl_site(site_id)
        assert visit["status"] == "ok"
        assert visit["pages_fetched"] <= crawling.CHECKPOINT_EVERY < 46
        assert _count(session, Match) == 0
        run = session.exec(select(CrawlRun)).one()
        assert run.status == "ok" and run.errors == 0


def test_a_visit_after_feedback_judges_the_pages_again(crawl_env: None, engine) -> None:
    from app.services import feedback
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=6)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football,) = make_concerns(session, seed, [["足球"]])
        assert crawl_site(site_id)["status"] == "ok"
        assert crawl_site(site_id)["status"] == "not_modified"
        match = session.exec(select(Match).where(Match.concern_id == football)).first()
        feedback.judge(session, match, False)
        session.commit()
        # the user taught the model: the site is read again though the seed says unchanged
        taught = crawl_site(site_id)
        assert taught["status"] == "ok" and taught["pages_fetched"] == 7
        # and once that is judged, an unchanged site costs one request again
        assert crawl_site(site_id)["status"] == "not_modified"
        runs = session.exec(select(CrawlRun).order_by(CrawlRun.id)).all()
        assert [r.status for r in runs] == ["ok", "not_modified", "ok", "not_modified"]


def test_a_visit_shows_its_progress_as_it_goes_and_its_harvest_ends_at_its_totals(
    crawl_env: None, engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.services import crawling

    seen: list[tuple[str, int]] = []
    save = crawling._save_checkpoint

    def watched(engine_, site_id, checkpoint, state) -> set[int]:  # type: ignore[no-untyped-def]
        live = save(engine_, site_id, checkpoint, state)
        with Session(engine_) as s:
            run = s.get(CrawlRun, state.run_id)
            seen.append((run.status, run.pages_fetched))
        return live

    monkeypatch.setattr(crawling, "_save_checkpoint", watched)
    early: list[int] = []
    store = crawling._store

    def store_and_look(engine_, site, scorers, event, state) -> None:  # type: ignore[no-untyped-def]
        store(engine_, site, scorers, event, state)
        if state.pages_fetched == 1:  # the list shows the visit's first page at once
            with Session(engine_) as s:
                early.append(s.get(CrawlRun, state.run_id).pages_fetched)

    monkeypatch.setattr(crawling, "_store", store_and_look)
    site_server = NewsSite(articles=45)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, _ = make_concerns(session, seed, [["足球"]])
        assert crawling.crawl_site(site_id)["status"] == "ok"
        # the running run's count grew while the visit went on
        assert seen and all(status == "running" for status, _ in seen)
        counts = [n for _, n in seen]
        assert counts == sorted(counts) and counts[0] > 0
        run = session.exec(select(CrawlRun)).one()
        assert run.pages_fetched == 46 and counts[-1] < 46
        assert early == [1], "the count is on the run from the first page on"
        # the last sample of the visit's harvest is its totals (the end of the visit's pushes)
        assert run.stats["harvest"][-1] == [run.pages_fetched, run.pages_matched]


def test_reprint_under_another_url_is_not_matched_again(crawl_env: None, engine) -> None:
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=1)
    page = site_server.pages["/news/1.html"]
    site_server.pages["/news/copy.html"] = page.replace(
        "独家报道", "独家报导"
    )  # a reprint, one character off
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football,) = make_concerns(session, seed, [["足球"]])
        crawl_site(site_id)
        assert _count(session, Page) == 3
        assert _count(session, Match, concern_id=football) == 1


def test_a_locked_site_is_skipped(crawl_env: None, engine) -> None:
    from app.core.config import get_settings
    from app.services.crawling import crawl_site
    from app.services.locks import DbLock

    site_server = NewsSite(articles=1)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, _ = make_concerns(session, seed, [["足球"]])
        other = DbLock(engine, site_id, get_settings().crawl_lock_seconds, owner="other")
        assert other.acquire()
        assert crawl_site(site_id)["status"] == "locked"
        assert _count(session, CrawlRun) == 0
        other.release()
        assert crawl_site(site_id)["status"] == "ok"


def test_db_lock_expires(crawl_env: None, engine) -> None:
    from app.services.locks import DbLock

    with Session(engine) as session:
        site_id, _ = make_concerns(session, "http://127.0.0.1:9/", [["x"]])
    dead = DbLock(engine, site_id, ttl=-1, owner="dead-worker")  # already expired
    assert dead.acquire()
    alive = DbLock(engine, site_id, ttl=60, owner="alive")
    assert alive.acquire()
    assert not dead.extend()
    assert not DbLock(engine, site_id, ttl=60, owner="third").acquire()
    dead.release()  # not its lock any more: a no-op
    assert not DbLock(engine, site_id, ttl=60, owner="third").acquire()
    alive.release()
    assert DbLock(engine, site_id, ttl=60, owner="third").acquire()


@pytest.mark.redis
def test_redis_lock(redis_url: str) -> None:
    from app.services.locks import RedisLock

    a = RedisLock(redis_url, 1, ttl=30, owner="a")
    b = RedisLock(redis_url, 1, ttl=30, owner="b")
    assert a.acquire() and not b.acquire()
    assert a.extend() and not b.extend()
    b.release()
    assert not RedisLock(redis_url, 1, ttl=30, owner="c").acquire()
    a.release()
    assert RedisLock(redis_url, 1, ttl=30, owner="c").acquire()


def test_feed_is_the_cheap_change_signal(crawl_env: None, engine) -> None:
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=3, feed=True)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football,) = make_concerns(session, seed, [["足球"]])
        assert crawl_site(site_id)["status"] == "ok"
        site = session.get(Site, site_id)
        assert site.feed_url == f"{seed}feed.xml"
        # the home page changes but the feed lists nothing new: one request, no crawl
        site_server.version += 1
        before = site_server.hits.total() - site_server.hits["/robots.txt"]
        assert crawl_site(site_id)["status"] == "not_modified"
        assert site_server.hits.total() - site_server.hits["/robots.txt"] == before + 1
        assert site_server.hits["/feed.xml"] == 1
        # a new article shows up in the feed: full crawl, one new match
        site_server.add_article(4, football=False)
        site_server.add_article(5, football=True)
        third = crawl_site(site_id)
        assert third["status"] == "ok" and third["changed"] is True
        assert _count(session, Match, concern_id=football) == 3
        runs = session.exec(select(CrawlRun).order_by(CrawlRun.id)).all()
        assert [r.stats["signal"] for r in runs] == ["crawl", "feed", "crawl"]


def test_a_shared_site_crawls_with_the_strategy_most_concerns_chose() -> None:
    from app.core.config import Settings
    from app.models import DEFAULT_STRATEGY
    from app.services.crawling import crawl_config

    site = Site(scope_key="host:http://t.test/", seed_url="http://t.test/", scope="host")

    def chosen(*names: str) -> str:
        concerns = [Concern(owner_id=1, seed_url=site.seed_url, strategy=n) for n in names]
        return str(crawl_config(Settings(), site, concerns).strategy)

    assert chosen("bfs", "fish", "bfs") == "bfs"
    # a tie goes to the product default, whatever the order of the concerns
    assert chosen("bfs", DEFAULT_STRATEGY) == DEFAULT_STRATEGY
    assert chosen(DEFAULT_STRATEGY, "bfs") == DEFAULT_STRATEGY
    assert chosen("statistical", "fish") == "fish"  # listed before statistical


def test_a_concerns_first_visit_reads_more_of_the_site() -> None:
    # a model with no earlier visit learns the site's topic from its first one: that visit
    # reads crawl_first_visit_factor times the budget; later visits keep the concern's own
    from app.core.config import Settings
    from app.services.crawling import crawl_config

    site = Site(scope_key="host:http://t.test/", seed_url="http://t.test/", scope="host")
    new = Concern(owner_id=1, seed_url=site.seed_url, max_pages=200)
    known = Concern(owner_id=1, seed_url=site.seed_url, max_pages=300, model_state={"version": 3})
    assert crawl_config(Settings(), site, [new]).max_pages == 1000
    assert crawl_config(Settings(), site, [known]).max_pages == 300
    # a site visit reads as far as its hungriest concern needs
    assert crawl_config(Settings(), site, [known, new]).max_pages == 1000
    assert crawl_config(Settings(crawl_first_visit_factor=1), site, [known, new]).max_pages == 300
    with pytest.raises(ValueError, match="crawl_first_visit_factor"):
        Settings(crawl_first_visit_factor=0.5)


def test_a_concerns_first_visit_does_not_pass_over_the_items_the_site_already_gave(
    crawl_env: None,
) -> None:
    # The site's saved state remembers the items its last visits fetched, and the next visit
    # passes over them; but to a concern that reads the site for the first time they are new.
    from app.core.config import Settings
    from app.services.crawling import crawl_config
    from crawler.profile import TopicProfile
    from crawler.steering import Steering
    from crawler.types import Page

    visited = Steering(TopicProfile.from_keywords(["足球"]))
    story = "http://t.test/news/1.html"
    visited.observe(Page(url=story, final_url=story, status=200, title="足球"), 0.9, False)
    learned = {"steer": visited.state()}
    site = Site(
        scope_key="host:http://t.test/",
        seed_url="http://t.test/",
        scope="host",
        checkpoint={"learned": learned},
    )
    new = Concern(owner_id=1, seed_url=site.seed_url, max_pages=200)
    known = Concern(owner_id=1, seed_url=site.seed_url, max_pages=200, model_state={"version": 3})
    assert crawl_config(Settings(), site, [known]).strategy_state == learned["steer"]
    for concerns in ([new], [known, new]):
        state = crawl_config(Settings(), site, concerns).strategy_state
        assert state is not None and "known" not in state
        assert state["stats"] == learned["steer"]["stats"]  # what it learned of the site stays
    assert len(_remembered(learned["steer"])) == 1


def _remembered(steer_state: dict) -> set[int]:
    """The items a site's saved link statistics remember (``Steering.known`` once loaded)."""
    from crawler.profile import TopicProfile
    from crawler.steering import Steering

    steering = Steering(TopicProfile.from_keywords(["足球"]))
    steering.load(steer_state)
    return steering.known


def test_what_a_visit_learned_steers_the_next_one(crawl_env: None, engine) -> None:
    # The site's link statistics and the judgment model of the merged topic are kept with the
    # site (in the database, not in a worker's memory) and start the next visit's crawl.
    from app.core.config import Settings
    from app.services.crawling import crawl_config, crawl_site

    site_server = NewsSite(articles=6)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, (football,) = make_concerns(session, seed, [["足球"]])
        assert crawl_site(site_id)["status"] == "ok"
        site = session.get(Site, site_id)
        session.refresh(site)
        learned = (site.checkpoint or {}).get("learned") or {}
        assert learned["steer"]["stats"], "section / URL-pattern statistics were saved"
        assert len(_remembered(learned["steer"])) == 6, "the six articles, not the index"
        assert learned["judge"]["items"] == 6
        concern = session.get(Concern, football)
        config = crawl_config(Settings(), site, [concern])
        assert config.scorer == "model"
        assert config.strategy_state == learned["steer"]
        assert config.judge_state == learned["judge"]
        # the concern's own model keeps the items it was fitted on, for the next visit to learn
        # from with its own
        session.refresh(concern)
        kept = concern.model_state["history"]
        assert len(kept) == 6 and sum(1 for entry in kept if entry["p"]) == 3
        # a later visit keeps it (and adds to it) rather than forgetting
        site_server.add_article(7, football=True)
        assert crawl_site(site_id)["status"] == "ok"
        session.refresh(site)
        assert site.checkpoint["learned"]["judge"]["items"] > 6
        assert len(_remembered(site.checkpoint["learned"]["steer"])) == 7
        session.refresh(concern)
        assert len(concern.model_state["history"]) == 7


class _SiteWithADeadLink(NewsSite):
    """The index also links to an article the server no longer has (404)."""

    def index(self) -> str:
        return super().index().replace("</ul>", '<li><a href="/news/gone.html">旧闻</a></li></ul>')


def test_a_failed_fetch_is_counted_under_its_documented_kind(crawl_env: None, engine) -> None:
    from prometheus_client import REGISTRY

    from app.services.crawling import crawl_site
    from crawler.errors import HTTPStatusError

    def counted() -> float:
        labels = {"kind": HTTPStatusError.kind}
        return REGISTRY.get_sample_value("timelypush_fetch_errors_total", labels) or 0.0

    site_server = _SiteWithADeadLink(articles=2)
    with site_server.serve() as seed, Session(engine) as session:
        site_id, _ = make_concerns(session, seed, [["足球"]])
        before = counted()
        summary = crawl_site(site_id)
        assert summary["status"] == "ok" and summary["pages_fetched"] == 3
        assert site_server.hits["/news/gone.html"] == 1
        run = session.exec(select(CrawlRun).where(CrawlRun.site_id == site_id)).one()
        assert run.errors == 1
        assert run.stats["error_kinds"] == {"http_status": 1}
        assert counted() == before + 1


def test_the_service_pushes_what_the_crawl_command_pushes(
    crawl_env: None, engine, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    # Both read the text of the links that led to a page beside the page itself: here the
    # home page's links alone name the topic of half the stories (their headlines do not). The
    # site has a second concern whose word (国足) is not one of the dictionary's: the crawl's
    # own judgment cuts the pages with it, the 足球 concern's own judgment without it.
    import json
    import random

    from typer.testing import CliRunner

    from app.cli import cli
    from app.core.config import get_settings
    from app.services.crawling import crawl_site
    from tests.crawler.server import serve_html

    monkeypatch.setenv("TIMELYPUSH_VAR_DIR", str(tmp_path / "var"))
    get_settings.cache_clear()
    heads = [f"国安客场二比一取胜 第{i}轮" if i % 2 else f"气温回升 第{i}天" for i in range(8)]
    texts = (
        "明天多云转晴，气温回升，空气质量良好，适合户外散步。气象台提醒注意早晚温差，"
        "出门记得添衣。本周末全市以晴好天气为主，南部山区午后有零星阵雨。",
        "记者从现场获悉，本场比赛观众超过三万人，双方上半场均有多次射门机会。赛后双方主教练"
        "都表示，这场比赛的结果对本赛季接下来的走势非常重要。",
    )
    pool = list("春夏秋冬东南西北山川河海城市乡村") * 8  # the stories differ: no reprints
    path = "/news/2026/11/28/story-{}.html"
    pages = {
        "/": "<html><head><title>首页</title></head><body><ul>"
        + "".join(
            f'<li><a href="{path.format(i)}">{"足球：" if i % 2 else ""}{h}</a></li>'
            for i, h in enumerate(heads)
        )
        + "</ul></body></html>",
        **{
            path.format(i): f"<html><head><title>{h}</title></head><body><h1>{h}</h1>"
            f"<p>{texts[i % 2]}{''.join(random.Random(i).sample(pool, 60))}"
            f"{'主教练谈了足球战术。' if i % 2 else ''}</p></body></html>"
            for i, h in enumerate(heads)
        },
    }
    with serve_html(pages) as web, Session(engine) as session:
        seed = web.url("/")
        args = ["crawl", seed, "-k", "足球", "--jsonl", "-", "--allow-private", "--delay", "0"]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        last = {}
        for line in result.stdout.splitlines():
            row = json.loads(line)
            last[row["final_url"]] = row  # the last row of a URL holds its decision
        by_cli = {url for url, row in last.items() if row["matched"]}

        site_id, (concern_id, _) = make_concerns(session, seed, [["足球"], ["国足"]])
        assert crawl_site(site_id)["status"] == "ok"
        by_service = set(session.exec(select(Match.url).where(Match.concern_id == concern_id)))
    assert by_cli == by_service == {web.url(path.format(i)) for i in range(1, 8, 2)}


def test_two_sites_on_one_host_are_not_read_at_once(crawl_env: None, engine) -> None:
    """A portal's home and its sport section are two sites on one host: while one is read,
    the other waits (each visit keeps the delay between its requests; two at once halve it)."""
    from app.models import utcnow
    from app.services.crawling import crawl_site

    site_server = NewsSite(articles=4)
    with site_server.serve() as seed, Session(engine) as session:
        home_id, _ = make_concerns(session, seed, [["足球"]])
        section_id, _ = make_concerns(session, seed + "sport/", [["足球"]])
        running = CrawlRun(site_id=home_id, strategy="adaptive", status="running")
        session.add(running)
        session.commit()
        assert crawl_site(section_id)["status"] == "locked"
        assert _count(session, CrawlRun, site_id=section_id) == 0  # nothing read
        running.status, running.finished_at = "ok", utcnow()
        session.add(running)
        session.commit()
        assert crawl_site(section_id)["status"] == "ok"
