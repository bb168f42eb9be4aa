"""A tiny news site on a loopback port for crawl tests (ThreadingHTTPServer on port 0).

``/`` links to ``/news/1.html`` … ``/news/N.html``; every page about football says 足球, the
others talk about the weather. ``/`` honours ``If-None-Match`` (ETag ``"v<version>"``);
bump ``version`` or ``add_article`` to change it. ``delay`` slows every answer down.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FOOTBALL = "足球联赛今晚开战，球队公布首发名单，足球迷期待精彩比赛。主教练谈足球战术与球员状态。"
WEATHER = "明天多云转晴，气温回升，空气质量良好，适合户外散步。气象台提醒注意早晚温差。"


def article(n: int, football: bool) -> str:
    title = f"足球新闻 第{n}期" if football else f"天气预报 第{n}期"
    rng = random.Random(n)
    words = list(FOOTBALL if football else WEATHER) + list("春夏秋冬东南西北山川河海城市乡村")
    body = (FOOTBALL if football else WEATHER) + "".join(rng.choice(words) for _ in range(400))
    keywords = "足球,联赛" if football else "天气,预报"
    return (
        f'<html><head><title>{title}</title><meta name="keywords" content="{keywords}">'
        f"</head><body><h1>{title}</h1>"
        f"<p>{body}</p><p>编号 {n} 独家报道 {n * 7919}</p></body></html>"
    )


class NewsSite:
    def __init__(self, articles: int = 6, delay: float = 0.0, feed: bool = False) -> None:
        self.feed = feed
        self.pages: dict[str, str] = {}
        self.version = 1
        self.delay = delay
        self.hits: Counter[str] = Counter()
        self.lock = threading.Lock()
        for n in range(1, articles + 1):
            self.add_article(n, football=n % 2 == 1, bump=False)

    def add_article(self, n: int, *, football: bool, bump: bool = True) -> None:
        with self.lock:
            self.pages[f"/news/{n}.html"] = article(n, football)
            if bump:
                self.version += 1

    def index(self) -> str:
        links = "".join(
            f'<li><a href="{path}">第{path.split("/")[-1].split(".")[0]}期</a></li>'
            for path in sorted(self.pages)
        )
        alternate = (
            '<link rel="alternate" type="application/rss+xml" href="/feed.xml">'
            if self.feed
            else ""
        )
        return (
            f"<html><head><title>新闻首页</title>{alternate}</head><body>"
            f"<h1>新闻首页</h1><ul>{links}</ul></body></html>"
        )

    def rss(self, base: str) -> str:
        items = "".join(
            f"<item><title>{path}</title><link>{base}{path}</link></item>"
            for path in sorted(self.pages)
        )
        return (
            '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
            f"<title>新闻</title><link>{base}/</link><ttl>30</ttl>{items}</channel></rss>"
        )

    @contextmanager
    def serve(self) -> Iterator[str]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                with site.lock:
                    site.hits[path] += 1
                if site.delay:
                    time.sleep(site.delay)
                etag = None
                if path == "/":
                    etag = f'"v{site.version}"'
                    if self.headers.get("If-None-Match") == etag:
                        self.send_response(304)
                        self.send_header("ETag", etag)
                        self.end_headers()
                        return
                    body = site.index()
                elif path == "/feed.xml" and site.feed:
                    body = site.rss(f"http://127.0.0.1:{self.server.server_address[1]}")
                elif path in site.pages:
                    body = site.pages[path]
                else:
                    self.send_error(404)
                    return
                data = body.encode("utf-8")
                self.send_response(200)
                kind = "application/rss+xml" if path == "/feed.xml" else "text/html"
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                if etag:
                    self.send_header("ETag", etag)
                self.end_headers()
                self.wfile.write(data)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


def make_concerns(session, seed: str, keyword_sets: list[list[str]], priority: int = 0):  # type: ignore[no-untyped-def]
    """One user, one site, a concern per keyword set; returns (site_id, [concern ids])."""
    from app.models import Concern, Site, User

    user = User(email=f"u{time.monotonic_ns()}@example.com", password_hash="x")
    session.add(user)
    session.flush()
    site = Site(scope_key=f"host:{seed}", seed_url=seed, scope="host")
    session.add(site)
    session.flush()
    ids = []
    for kws in keyword_sets:
        c = Concern(
            owner_id=user.id,
            seed_url=seed,
            keywords=kws,
            site_id=site.id,
            priority=priority,
            max_pages=50,
        )
        session.add(c)
        session.flush()
        ids.append(c.id)
    session.commit()
    return site.id, ids
