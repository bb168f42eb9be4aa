"""Concerns: keyword normalisation, URL validation, shared sites, ownership."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from pydantic import ValidationError
from sqlmodel import Session, select

from app.models import ConcernCreate, ConcernUpdate, Site
from app.services import concerns, sites, visits
from app.services.errors import Conflict, Invalid, NotFound
from tests.factories import make_account


def test_keywords_split_on_chinese_and_western_punctuation() -> None:
    raw = "人工智能，机器学习、 deep  learning ; AI；ＧＰＴ４\n大模型"
    assert concerns.normalize_keywords(raw) == [
        "人工智能",
        "机器学习",
        "deep learning",
        "AI",
        "GPT4",
        "大模型",
    ]


def test_keywords_dedupe_case_insensitively_keeping_first_spelling() -> None:
    assert concerns.normalize_keywords(["Python", "python, PYTHON", "Rust"]) == ["Python", "Rust"]
    assert concerns.normalize_keywords("ＡＢＣ,abc") == ["ABC"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "at least one keyword"),
        (" ，、 ", "at least one keyword"),
        (",".join(f"k{i}" for i in range(21)), "At most 20"),
        ("x" * 51, "longer than 50"),
    ],
)
def test_keywords_rejected_with_clear_message(value: str, message: str) -> None:
    with pytest.raises(Invalid, match=message):
        concerns.normalize_keywords(value)


def test_exclude_may_be_empty() -> None:
    assert concerns.normalize_keywords("", field="exclude", allow_empty=True) == []


def test_scope_key_rules() -> None:
    assert sites.scope_key("https://News.Example.com:443/tech?x=1#top", "host") == (
        "host:news.example.com/tech?x=1"
    )
    assert sites.scope_key("http://news.example.com", "host") == "host:news.example.com/"
    assert sites.scope_key("http://news.example.com:8080/", "domain") == (
        "domain:news.example.com:8080/"
    )
    assert sites.scope_key("https://例子.测试/", "host") == "host:xn--fsqu00a.xn--0zwm56d/"
    assert sites.scope_key("https://a.example.com/x", "host") != sites.scope_key(
        "https://a.example.com/y", "host"
    )


def _create(session: Session, user, seed: str = "news.example.com/tech", **kw):  # type: ignore[no-untyped-def]
    data = ConcernCreate(seed_url=seed, keywords=kw.pop("keywords", "芯片, AI"), **kw)
    return concerns.create_concern(session, user, data, probe=False)


def test_create_adds_scheme_shares_site_and_schedules(
    session: Session, allow_test_hosts: None
) -> None:
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    a = _create(session, alice)
    b = _create(session, bob, "https://news.example.com/tech", keywords="半导体")
    assert a.seed_url == "https://news.example.com/tech"
    assert a.keywords == ["芯片", "AI"]
    assert a.site_id is not None and a.site_id == b.site_id
    site = session.get(Site, a.site_id)
    assert site is not None and site.next_visit_at is not None
    public = concerns.concern_public(session, a)
    assert public.next_visit_at == site.next_visit_at
    assert public.revisit_level == site.level
    other = _create(session, alice, "news.example.com/sports")
    assert other.site_id != a.site_id


def test_the_same_site_and_keywords_twice_is_refused(
    session: Session, allow_test_hosts: None
) -> None:
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    first = _create(session, alice, "https://news.example.com/", keywords="芯片, AI")
    # the same site as the crawl sees it, the same words in another order and case
    same = (("news.example.com", "ai，芯片"), ("https://news.example.com/", "AI, 芯片"))
    for seed, words in same:
        with pytest.raises(Conflict) as exc:
            _create(session, alice, seed, keywords=words)
        assert exc.value.code == "duplicate_concern"
        assert exc.value.details == {"field": "keywords", "concern_id": first.id}
    # other words, another scope, or another user: a concern of its own
    _create(session, alice, "https://news.example.com/", keywords="芯片")
    _create(session, alice, "https://news.example.com/", keywords="芯片, AI", scope="domain")
    _create(session, bob, "https://news.example.com/", keywords="芯片, AI")
    # an edit that would make a concern the same as another is refused, and changes nothing
    other = _create(session, alice, "https://news.example.com/", keywords="存储")
    with pytest.raises(Conflict):
        concerns.update_concern(session, alice, other.id, ConcernUpdate(keywords="AI,芯片"))
    session.refresh(other)
    assert other.keywords == ["存储"]
    assert len(concerns.list_concerns(session, alice)) == 4


def test_attach_site_is_idempotent_for_the_same_scope_key(
    session: Session, allow_test_hosts: None
) -> None:
    alice = make_account(session)
    c = _create(session, alice)
    again = sites.attach_site(session, c)
    session.commit()
    assert again.id == c.site_id
    assert len(session.exec(select(Site)).all()) == 1


def test_private_and_bad_urls_are_refused(session: Session, settings_env: None) -> None:
    alice = make_account(session)
    for seed, code in [
        ("http://127.0.0.1/", "blocked_url"),
        ("http://10.1.2.3/admin", "blocked_url"),
        ("http://169.254.169.254/latest/meta-data", "blocked_url"),
        ("ftp://files.example.com/", "invalid_url"),
        ("http://", "invalid_url"),
    ]:
        with pytest.raises(Invalid) as exc:
            _create(session, alice, seed)
        assert exc.value.code == code, seed


def test_other_users_concerns_are_not_found(session: Session, allow_test_hosts: None) -> None:
    alice = make_account(session)
    bob = make_account(session, "bob@example.com")
    c = _create(session, alice)
    assert c.id is not None
    for call in (
        lambda: concerns.get_concern(session, bob, c.id),
        lambda: concerns.update_concern(session, bob, c.id, ConcernUpdate(priority=3)),
        lambda: concerns.pause_concern(session, bob, c.id),
        lambda: concerns.delete_concern(session, bob, c.id),
        lambda: visits.request_visit(session, bob, c.id),
    ):
        with pytest.raises(NotFound):
            call()
    assert concerns.list_concerns(session, bob) == []
    assert [x.id for x in concerns.list_concerns(session, alice)] == [c.id]


def test_update_pause_resume_delete(session: Session, allow_test_hosts: None) -> None:
    alice = make_account(session)
    c = _create(session, alice)
    assert c.id is not None
    old_site = c.site_id
    c = concerns.update_concern(
        session,
        alice,
        c.id,
        ConcernUpdate(keywords="新词", priority=5, seed_url="news.example.com/world"),
        probe=False,
    )
    assert c.keywords == ["新词"] and c.priority == 5
    assert c.site_id != old_site
    with pytest.raises(ValidationError):  # the API's model refuses it
        ConcernUpdate(strategy="magic")
    with pytest.raises(Invalid):  # and so does the service, given one not validated
        concerns.update_concern(
            session, alice, c.id, ConcernUpdate.model_construct(strategy="magic")
        )
    assert concerns.pause_concern(session, alice, c.id).enabled is False
    assert concerns.resume_concern(session, alice, c.id).enabled is True
    concerns.delete_concern(session, alice, c.id)
    assert concerns.list_concerns(session, alice) == []


class _Handler(BaseHTTPRequestHandler):
    def do_HEAD(self) -> None:
        if self.path == "/nohead":
            self.send_response(405)
        elif self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/ok")
        elif self.path == "/evil":
            self.send_response(302)
            self.send_header("Location", "http://10.0.0.1/")
        elif self.path == "/missing":
            self.send_response(404)
        else:
            self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self.send_response(404 if self.path == "/missing" else 200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_reachability_probe(session: Session, allow_test_hosts: None, loopback: str) -> None:
    alice = make_account(session)
    for path in ("/ok", "/nohead", "/moved"):
        data = ConcernCreate(seed_url=loopback + path, keywords="x")
        assert concerns.create_concern(session, alice, data).seed_url == loopback + path
    with pytest.raises(Invalid, match="404"):
        concerns.create_concern(
            session, alice, ConcernCreate(seed_url=loopback + "/missing", keywords="x")
        )
    with pytest.raises(Invalid) as exc:
        concerns.create_concern(
            session, alice, ConcernCreate(seed_url=loopback + "/evil", keywords="x")
        )
    assert exc.value.code == "blocked_url"


def test_probe_reports_a_refused_connection(session: Session, allow_test_hosts: None) -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    alice = make_account(session)
    with pytest.raises(Invalid, match="Could not connect"):
        concerns.create_concern(
            session, alice, ConcernCreate(seed_url=f"http://127.0.0.1:{port}/", keywords="x")
        )


def test_the_concern_limit_holds_under_parallel_requests(
    engine: object, session: Session, allow_test_hosts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from sqlalchemy import func

    from app.models import Concern

    monkeypatch.setattr(concerns, "MAX_CONCERNS_PER_USER", 3)
    user = make_account(session)

    def create(i: int) -> str:
        with Session(engine, expire_on_commit=False) as s:  # type: ignore[call-overload]
            try:
                concerns.create_concern(
                    s,
                    user,
                    ConcernCreate(seed_url=f"https://s{i}.example.com/", keywords="AI"),
                    probe=False,
                )
                s.commit()
            except Invalid as exc:
                return exc.code
            return "ok"

    with ThreadPoolExecutor(max_workers=12) as pool:
        outcomes = list(pool.map(create, range(12)))
    assert outcomes.count("ok") == 3
    assert outcomes.count("too_many_concerns") == 9
    count = session.exec(select(func.count()).select_from(Concern)).one()
    assert count == 3


def test_new_keywords_forget_what_the_old_topic_taught(
    session: Session, allow_test_hosts: None
) -> None:
    from app.services import feedback

    alice = make_account(session)
    c = _create(session, alice)
    assert c.id is not None
    c.model_state = {"version": 2, "weights": {"中超": 2.0, "国安": 1.0}, "bias": -1.0}
    c.learned_terms = {"中超": 2.0}
    session.add(c)
    session.commit()
    # the same words again, and other fields: what was learned stays
    c = concerns.update_concern(
        session, alice, c.id, ConcernUpdate(keywords=c.keywords, priority=4), probe=False
    )
    assert c.model_state["weights"] == {"中超": 2.0, "国安": 1.0}
    assert [t.term for t in feedback.learned_terms(c)] == ["中超"]
    # another topic: neither the terms nor the model they came from carry over
    c = concerns.update_concern(session, alice, c.id, ConcernUpdate(keywords="篮球"), probe=False)
    assert c.learned_terms == {} and c.model_state == {}
    assert feedback.learned_terms(c) == []


def test_lists_leave_the_stored_model_unread_and_it_is_stored_compactly(
    session: Session, allow_test_hosts: None
) -> None:
    # a concern's stored model holds the pages it learns from (hundreds of kilobytes): the
    # lists, feeds and deliveries that load concerns leave it unread until something asks
    from sqlalchemy import inspect, text

    alice = make_account(session)
    c = _create(session, alice)
    state = {"version": 3, "weights": {"中超": 2.0}, "history": [{"u": "http://x/1", "f": {}}]}
    c.model_state = state
    session.add(c)
    session.commit()
    session.expunge_all()
    (listed,) = concerns.list_concerns(session, alice)
    assert "model_state" in inspect(listed).unloaded
    assert "keywords" not in inspect(listed).unloaded
    assert listed.model_state == state  # read when asked
    raw = session.exec(  # type: ignore[call-overload]
        text("SELECT CAST(model_state AS TEXT) FROM concerns WHERE id = :i").bindparams(i=c.id)
    ).one()[0]
    assert "中超" in raw and "\\u" not in raw and ": " not in raw
    # the site's checkpoint (the crawl's state and the site's model) likewise
    from app.models import Site, sites_query

    (site,) = session.exec(sites_query().where(Site.id == listed.site_id))
    assert "checkpoint" in inspect(site).unloaded
