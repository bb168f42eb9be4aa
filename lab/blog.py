"""A lab web shaped like personal blogs, not portals (``lab build --layout blog``), in Chinese
or English: a test of everything tuned on the news and university webs against another
structure.

Each blog (a host of its own: ``name.test``, ``blog.name.test`` or ``www.name.test``) is one
person's, who writes about a few subjects more than others. Its posts are the items; the rest
are hubs, as a blog engine makes them:

* **posts** at one permalink style per blog (``/2019/05/17/slug/``, ``/archives/123.html``,
  ``/?p=123``, ``/post/123/``): the headline in ``<h1>``, the date and category, the text
  (the corpus's body, or for a headline-only Chinese document its headline, keywords and a
  neutral line or two), tags, links to the previous and next posts, and readers' comments;
* **lists** with an excerpt of each post (so they carry much text): the home page and its
  older pages (``/page/2/``), each category's and tag's pages, and each month's archive;
* an **about** page.

Every page has the same sidebar: recent posts, categories, a tag cloud, the archive's months
and the blogroll (the other blogs). Half the blogs file posts under subject names (Sport,
体育), the others under the author's own (Notes, 随笔) that say nothing about the subject.
Some posts cite a post of another blog on the same subject. A page is on a topic as its
document is (the judge of :mod:`lab.judge`).

The output is the lab web's (:mod:`lab.builder`): ``sites/``, ``truth.jsonl`` (kinds ``home``,
``channel``, ``list``, ``special`` for hubs, ``article`` for posts), ``graph.jsonl`` and
``manifest.json`` (``layout: blog``; seeds: the first blog's home, and its category page that
holds most sports posts).
"""

from __future__ import annotations

import html
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from lab.builder import write_layout
from lab.corpus import CATEGORY_NAMES, EN_CATEGORY_NAMES, Doc
from lab.judge import is_football

_BLOGS = {
    "en": (
        ("Harbour Notes", "harbournotes"),
        ("The Quiet Corner", "quietcorner"),
        ("Field Journal", "fieldjournal"),
        ("Long Reads", "longreads"),
        ("Paper Trail", "papertrail"),
        ("Small Hours", "smallhours"),
        ("Open Window", "openwindow"),
        ("Second Draft", "seconddraft"),
    ),
    "zh": (
        ("半亩方塘", "banmu"),
        ("夜读札记", "yedu"),
        ("山中来信", "shanzhong"),
        ("闲话集", "xianhua"),
        ("窗前笔记", "chuangqian"),
        ("一苇", "yiwei"),
        ("拾遗录", "shiyi"),
        ("晚风", "wanfeng"),
    ),
}
_OWN_CATEGORIES = {
    "en": ("Notes", "Weekend", "Reading", "Elsewhere", "Misc"),
    "zh": ("随笔", "周末", "读报", "杂记", "转载"),
}
"""Categories that name no subject (half the blogs file under these)."""
_COMMENTS = {
    "en": (
        "Great post, thanks!",
        "I had never thought of it that way.",
        "Couldn't agree more.",
        "Interesting read, bookmarked.",
        "Do you have a source for this?",
        "Same here, saw it this morning.",
    ),
    "zh": (
        "写得好，谢谢分享！",
        "学习了。",
        "说得很有道理。",
        "收藏了，慢慢看。",
        "楼主有出处吗？",
        "早上也看到了这条。",
    ),
}
_NAMES = {
    "en": ("Sam", "Alex", "Jo", "Chris", "Robin", "Pat", "Lee", "Morgan"),
    "zh": ("小林", "阿木", "老周", "路人甲", "青青", "大熊", "晓风", "Kevin"),
}
_FILLER_ZH = (
    "随手记下，供自己日后翻看。",
    "以上是个人的一点看法，欢迎留言讨论。",
    "最近看到这条消息，顺手记在这里。",
    "细节还要再看看，先写到这儿。",
)
_WORDS = {
    "en": {
        "home": "Home",
        "about": "About",
        "more": "Read more »",
        "older": "Older posts »",
        "newer": "« Newer posts",
        "recent": "Recent posts",
        "categories": "Categories",
        "tags": "Tags",
        "archives": "Archives",
        "blogroll": "Blogroll",
        "comments": "{n} comments",
        "filed": "Posted on {date} in",
        "via": "Via",
        "page": "Page {n}",
        "tag": "Posts tagged “{tag}”",
        "month": "Archive: {month}",
        "bio": "A few notes on whatever caught my eye this week. Written by {author}.",
    },
    "zh": {
        "home": "首页",
        "about": "关于",
        "more": "阅读全文»",
        "older": "更早的文章»",
        "newer": "«较新的文章",
        "recent": "最新文章",
        "categories": "分类",
        "tags": "标签",
        "archives": "归档",
        "blogroll": "友情链接",
        "comments": "{n} 条评论",
        "filed": "发表于 {date}，分类：",
        "via": "来源：",
        "page": "第 {n} 页",
        "tag": "标签：{tag}",
        "month": "归档：{month}",
        "bio": "记录每周看到的新鲜事。作者：{author}。",
    },
}
_PER_PAGE = 10
_SENTENCE = {"en": re.compile(r"(?<=[.!?])\s+"), "zh": re.compile(r"(?<=[。！？])")}
_TAG_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{4,}")
_SEPARATORS = (" – ", " | ", " - ", "_")
_STYLES = ("date", "archives", "query", "post")
_HOST_STYLES = ("{h}.test", "blog.{h}.test", "www.{h}.test")


@dataclass
class _Post:
    doc: Doc
    id: int
    day: date
    category: str
    tags: list[str]
    url: str = ""
    football: bool = False
    cites: _Post | None = None
    """A post of another blog on the same subject this one links to."""


@dataclass
class Page:
    """A page of a lab web of another layout than the portals' (``lab.blog``,
    ``lab.magazine``): its body's HTML (``main``) and, for the truth, its kind and subject."""

    url: str
    title: str
    main: str
    kind: str
    category: str = ""
    football: bool = False
    links: list[str] = field(default_factory=list)
    head: str = ""
    """More of the ``<head>`` after the title (JSON-LD, ``og:type``)."""


@dataclass
class _Blog:
    name: str
    handle: str
    base: str
    lang: str
    style: str
    sep: str
    categories: dict[str, str]
    """Corpus category → the category name this blog files its posts under."""
    author: str
    posts: list[_Post] = field(default_factory=list)

    def words(self, key: str, **kw: object) -> str:
        return _WORDS[self.lang][key].format(**kw)

    def slug(self, name: str) -> str:
        if self.lang == "en":
            return url_slug(name) or "x"
        return str(sorted(set(self.categories.values()) | {name}).index(name) + 1)


def paragraphs(doc: Doc, lang: str, rng: random.Random) -> list[str]:
    """A document's text in paragraphs of three sentences (a headline-only Chinese document:
    its headline and keywords, then two neutral lines)."""
    if not doc.body:  # a Chinese headline with its keywords
        first = f"{doc.title}。"
        if doc.keywords:
            first += f"关键词：{'、'.join(doc.keywords)}。"
        return [first, "".join(rng.sample(_FILLER_ZH, 2))]
    sentences = [s.strip() for s in _SENTENCE[lang].split(doc.body.strip()) if s.strip()]
    glue = " " if lang == "en" else ""
    return [glue.join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)][:30]


def _excerpt(doc: Doc, lang: str, rng: random.Random) -> str:
    text = (" " if lang == "en" else "").join(paragraphs(doc, lang, rng)[:2])
    if lang == "en":
        words = text.split()
        return " ".join(words[:40]) + (" …" if len(words) > 40 else "")
    return text[:90] + ("……" if len(text) > 90 else "")


def _tags(doc: Doc, lang: str) -> list[str]:
    if lang == "zh":
        return [k for k in doc.keywords if 1 < len(k) <= 8][:3]
    words = [w.lower() for w in _TAG_WORD.findall(doc.title)]
    return list(dict.fromkeys(words))[:3]


def url_slug(text: str) -> str:
    """``text`` as an English URL word: lower case, runs of other characters made one ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def anchor(url: str, text: str, cls: str = "") -> str:
    """A link's HTML (text and address escaped), with a class when ``cls`` is given."""
    attr = f" class='{cls}'" if cls else ""
    return f"<a{attr} href='{html.escape(url)}'>{html.escape(text)}</a>"


def _ul(links: list[tuple[str, str]]) -> str:
    return "<ul>" + "".join(f"<li>{anchor(u, t)}</li>" for u, t in links) + "</ul>"


class _Builder:
    def __init__(self, blogs: list[_Blog], rng: random.Random) -> None:
        self.blogs = blogs
        self.rng = rng
        self.pages: dict[str, Page] = {}
        self._frames: dict[str, tuple[str, str]] = {}
        """Per blog, its header and sidebar (the same on every page, once its posts are in)."""

    def permalink(self, blog: _Blog, post: _Post) -> str:
        if blog.style == "date":
            slug = url_slug(post.doc.title)[:60] if blog.lang == "en" else str(post.id)
            return f"{blog.base}{post.day:%Y/%m/%d}/{slug or post.id}/"
        if blog.style == "archives":
            return f"{blog.base}archives/{post.id}.html"
        if blog.style == "query":
            return f"{blog.base}?p={post.id}"
        return f"{blog.base}post/{post.id}/"

    def sidebar(self, blog: _Blog) -> str:
        posts = blog.posts
        cats = sorted({p.category for p in posts})
        counts: dict[str, int] = {}
        for p in posts:
            for t in p.tags:
                counts[t] = counts.get(t, 0) + 1
        cloud = sorted((t for t in counts if counts[t] > 1), key=lambda t: (-counts[t], t))[:15]
        months = sorted({(p.day.year, p.day.month) for p in posts}, reverse=True)[:12]
        others = [(b.base, b.name) for b in self.blogs if b is not blog]
        return (
            f"<aside class='sidebar'><h3>{blog.words('recent')}</h3>"
            + _ul([(p.url, p.doc.title) for p in posts[:5]])
            + f"<h3>{blog.words('categories')}</h3>"
            + _ul([(self.category_url(blog, c), c) for c in cats])
            + f"<h3>{blog.words('tags')}</h3><p class='tagcloud'>"
            + " ".join(anchor(self.tag_url(blog, t), t) for t in cloud)
            + f"</p><h3>{blog.words('archives')}</h3>"
            + _ul([(f"{blog.base}{y}/{m:02d}/", f"{y}-{m:02d}") for y, m in months])
            + f"<h3>{blog.words('blogroll')}</h3>"
            + _ul(others)
            + "</aside>"
        )

    def category_url(self, blog: _Blog, name: str) -> str:
        return f"{blog.base}category/{blog.slug(name)}/"

    def tag_url(self, blog: _Blog, tag: str) -> str:
        slug = url_slug(tag)
        if blog.lang == "zh" or not slug:
            slug = str(abs(hash_tag(tag)))
        return f"{blog.base}tag/{slug}/"

    def header(self, blog: _Blog) -> str:
        cats = sorted({p.category for p in blog.posts})[:4]
        nav = [(blog.base, blog.words("home")), *((self.category_url(blog, c), c) for c in cats)]
        nav.append((f"{blog.base}about/", blog.words("about")))
        return (
            f"<header><p class='site-title'>{anchor(blog.base, blog.name)}</p>"
            f"<nav>{_ul(nav)}</nav></header>"
        )

    def add(self, blog: _Blog, page: Page) -> None:
        self.pages[page.url] = page
        frame = self._frames.get(blog.handle)
        if frame is None:
            frame = self._frames[blog.handle] = (self.header(blog), self.sidebar(blog))
        page.main = (
            f"{frame[0]}<main>{page.main}</main>{frame[1]}"
            f"<footer><p>© {html.escape(blog.author)} · {html.escape(blog.name)}</p></footer>"
        )

    def post(self, blog: _Blog, i: int) -> None:
        post = blog.posts[i]
        rng = self.rng
        text = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs(post.doc, blog.lang, rng))
        cites = ""
        if post.cites is not None:
            cites = f"<p>{blog.words('via')} {anchor(post.cites.url, post.cites.doc.title)}</p>"
        tags = " ".join(anchor(self.tag_url(blog, t), t) for t in post.tags)
        nav = []
        if i + 1 < len(blog.posts):
            older = blog.posts[i + 1]
            nav.append(anchor(older.url, f"« {older.doc.title}"))
        if i > 0:
            newer = blog.posts[i - 1]
            nav.append(anchor(newer.url, f"{newer.doc.title} »"))
        n = rng.choice((0, 0, 1, 2, 3, 5))
        comments = "".join(
            f"<div class='comment'><b>{rng.choice(_NAMES[blog.lang])}</b>"
            f"<p>{html.escape(rng.choice(_COMMENTS[blog.lang]))}</p></div>"
            for _ in range(n)
        )
        main = (
            f"<article><h1 class='entry-title'>{html.escape(post.doc.title)}</h1>"
            f"<p class='meta'>{blog.words('filed', date=post.day.isoformat())} "
            f"{anchor(self.category_url(blog, post.category), post.category)}</p>"
            f"<div class='entry-content'>{text}{cites}</div>"
            f"<p class='tags'>{blog.words('tags')}: {tags}</p>"
            f"<nav class='post-nav'>{' '.join(nav)}</nav>"
            f"<section class='comments'><h3>{blog.words('comments', n=n)}</h3>{comments}"
            "</section></article>"
        )
        self.add(
            blog,
            Page(
                post.url,
                f"{post.doc.title}{blog.sep}{blog.name}",
                main,
                "article",
                post.doc.category,
                post.football,
            ),
        )

    def listing(
        self, blog: _Blog, first: str, title: str, posts: list[_Post], kind: str, category: str
    ) -> None:
        """A list of posts with excerpts, ``_PER_PAGE`` a page: ``first``, then
        ``first`` + ``page/2/`` and on."""
        chunks = [posts[i : i + _PER_PAGE] for i in range(0, len(posts), _PER_PAGE)] or [[]]
        urls = [first] + [f"{first}page/{n}/" for n in range(2, len(chunks) + 1)]
        for n, (url, chunk) in enumerate(zip(urls, chunks, strict=True), start=1):
            entries = "".join(
                f"<div class='entry'><h2>{anchor(p.url, p.doc.title)}</h2>"
                f"<p class='meta'>{p.day.isoformat()}</p>"
                f"<p>{html.escape(_excerpt(p.doc, blog.lang, self.rng))}</p>"
                f"{anchor(p.url, blog.words('more'))}</div>"
                for p in chunk
            )
            pager = []
            if n > 1:
                pager.append(anchor(urls[n - 2], blog.words("newer")))
            pager += [anchor(u, str(k)) for k, u in enumerate(urls, start=1) if k != n]
            if n < len(urls):
                pager.append(anchor(urls[n], blog.words("older")))
            heading = title if n == 1 else f"{title} · {blog.words('page', n=n)}"
            self.add(
                blog,
                Page(
                    url,
                    f"{heading}{blog.sep}{blog.name}" if title != blog.name else heading,
                    f"<h1>{html.escape(heading)}</h1>{entries}"
                    f"<nav class='pagination'>{' '.join(pager)}</nav>",
                    kind if n == 1 else "list",
                    category,
                ),
            )


def hash_tag(tag: str) -> int:
    """A stable number for a tag's URL (Python's ``hash`` of a str changes per process)."""
    n = 0
    for ch in tag:
        n = (n * 131 + ord(ch)) % 1_000_003
    return n


DEFAULT_SIZE = (6, 150)
"""(blogs, posts per blog) when not given."""


def build_blog(
    docs: list[Doc],
    out: Path,
    *,
    lang: str,
    seed: int = 0,
    sites: int = DEFAULT_SIZE[0],
    articles: int = DEFAULT_SIZE[1],
) -> dict[str, object]:
    """Write the blog web of ``sites`` blogs (at most eight) into ``out``, about ``articles``
    posts each (±25 %); return the manifest."""
    rng = random.Random(seed)  # noqa: S311 (a reproducible lab web, not a secret)
    names = EN_CATEGORY_NAMES if lang == "en" else CATEGORY_NAMES
    pools = subject_pools(docs, names, rng)
    blogs = _blogs(rng, lang, sites, names, sorted(pools))
    for blog in blogs:
        _posts(rng, blog, pools, articles)
    builder = _Builder(blogs, rng)
    for blog in blogs:
        for post in blog.posts:
            post.url = builder.permalink(blog, post)
    _cite(rng, blogs)
    for blog in blogs:
        for i in range(len(blog.posts)):
            builder.post(blog, i)
        _lists(builder, blog)
    return _write(builder, blogs, out, lang)


def _blogs(
    rng: random.Random, lang: str, sites: int, names: dict[str, str], subjects: list[str]
) -> list[_Blog]:
    """The blogs: host, permalink style, title separator, and the category each subject is
    filed under (its name on half the blogs, the author's own word on the others)."""
    blogs = []
    for name, handle in _BLOGS[lang][: max(1, min(sites, len(_BLOGS[lang])))]:
        host = rng.choice(_HOST_STYLES).format(h=handle)
        own = rng.random() < 0.5
        categories = {c: (rng.choice(_OWN_CATEGORIES[lang]) if own else names[c]) for c in subjects}
        blogs.append(
            _Blog(
                name,
                handle,
                f"http://{host}/",
                lang,
                rng.choice(_STYLES),
                rng.choice(_SEPARATORS),
                categories,
                rng.choice(_NAMES[lang]),
            )
        )
    return blogs


def _posts(rng: random.Random, blog: _Blog, pools: dict[str, list[Doc]], articles: int) -> None:
    """The blog's posts, newest first: a few subjects the author writes about most (sport one
    of them on half the blogs), a post every few days."""
    subjects = sorted(pools)
    favourites = rng.sample(subjects, min(3, len(subjects)))
    if "sports" in subjects and "sports" not in favourites and rng.random() < 0.5:
        favourites[0] = "sports"
    weights = [(2.0 * len(subjects) / 3 if c in favourites else 1.0) for c in subjects]
    n = max(5, round(articles * rng.uniform(0.75, 1.25)))
    day = date(2024, 6, 30)
    next_id = rng.randint(100, 3000)  # a blog's own numbering, as a blog engine's
    for _ in range(n):
        subject = rng.choices(subjects, weights)[0]
        if not pools[subject]:
            continue  # the corpus ran out for this subject
        doc = pools[subject].pop()
        next_id += rng.randint(1, 7)
        day -= timedelta(days=rng.choice((0, 1, 1, 2, 3, 5)))
        post = _Post(doc, next_id, day, blog.categories[subject], _tags(doc, blog.lang))
        post.football = is_football(doc)
        blog.posts.append(post)


def _cite(rng: random.Random, blogs: list[_Blog]) -> None:
    """Some posts cite a post of another blog on the same subject."""
    by_subject: dict[str, list[tuple[_Blog, _Post]]] = {}
    for blog in blogs:
        for post in blog.posts:
            by_subject.setdefault(post.doc.category, []).append((blog, post))
    for blog in blogs:
        for post in blog.posts:
            if rng.random() < 0.15:
                others = [p for b, p in by_subject[post.doc.category] if b is not blog]
                if others:
                    post.cites = rng.choice(others)


def _lists(builder: _Builder, blog: _Blog) -> None:
    """The blog's hubs: home and its older pages, each category, tag and month, and the about
    page."""
    builder.listing(blog, blog.base, blog.name, blog.posts, "home", "")
    for cat in sorted({p.category for p in blog.posts}):
        posts = [p for p in blog.posts if p.category == cat]
        subject = subject_of(p.doc for p in posts)
        builder.listing(blog, builder.category_url(blog, cat), cat, posts, "channel", subject)
    tags: dict[str, list[_Post]] = {}
    for p in blog.posts:
        for t in p.tags:
            tags.setdefault(t, []).append(p)
    for tag, posts in tags.items():  # every tag a post links to has its list, as on any blog
        title = blog.words("tag", tag=tag)
        builder.listing(blog, builder.tag_url(blog, tag), title, posts, "list", "")
    months: dict[tuple[int, int], list[_Post]] = {}
    for p in blog.posts:
        months.setdefault((p.day.year, p.day.month), []).append(p)
    for (y, m), posts in months.items():
        title = blog.words("month", month=f"{y}-{m:02d}")
        builder.listing(blog, f"{blog.base}{y}/{m:02d}/", title, posts, "list", "")
    bio = html.escape(blog.words("bio", author=blog.author))
    builder.add(
        blog,
        Page(
            f"{blog.base}about/",
            f"{blog.words('about')}{blog.sep}{blog.name}",
            f"<h1>{blog.words('about')}</h1><p>{bio}</p>",
            "special",
        ),
    )


def subject_pools(
    docs: Iterable[Doc], names: Iterable[str], rng: random.Random
) -> dict[str, list[Doc]]:
    """The corpus's documents with a text (or keywords) per subject named in ``names``,
    shuffled: what a lab web's pages are drawn from."""
    wanted = set(names)
    pools: dict[str, list[Doc]] = {}
    for doc in sorted(docs, key=lambda d: d.source):
        if doc.category in wanted and (doc.body or doc.keywords):
            pools.setdefault(doc.category, []).append(doc)
    for pool in pools.values():
        rng.shuffle(pool)
    return pools


def subject_of(docs: Iterable[Doc]) -> str:
    """A list page's subject in the truth: the one its documents are about, when they all are
    (a category named after a subject); else none."""
    subjects = {d.category for d in docs}
    return subjects.pop() if len(subjects) == 1 else ""


_LINK = re.compile(r"href='([^']*)'")


def _html(page: Page, lang: str) -> bytes:
    return (
        f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'>"
        f"<title>{html.escape(page.title)}</title>{page.head}</head>"
        f"<body>{page.main}</body></html>"
    ).encode()


def write_pages(
    out: Path,
    pages: dict[str, Page],
    *,
    lang: str,
    hosts: list[str],
    seeds: dict[str, str],
    layout: str,
) -> dict[str, object]:
    """Write ``pages`` as a lab web (``lab.builder.write_layout``): each site its own host and
    portal, the links of each page read from its HTML; return the manifest."""
    return write_layout(
        out,
        pages,
        page=lambda url: _html(pages[url], lang),
        links=lambda url: list(
            dict.fromkeys(html.unescape(u) for u in _LINK.findall(pages[url].main))
        ),
        hosts=hosts,
        portal=lambda host: host,
        seeds=seeds,
        lang=lang,
        layout=layout,
    )


def _write(builder: _Builder, blogs: list[_Blog], out: Path, lang: str) -> dict[str, object]:
    pages = builder.pages
    first = blogs[0]
    sport = [p for p in first.posts if p.doc.category == "sports"]
    sport_category = max(
        {p.category for p in sport} or {first.posts[0].category},
        key=lambda c: sum(p.category == c for p in sport),
    )
    return write_pages(
        out,
        pages,
        lang=lang,
        hosts=[b.base.removeprefix("http://").rstrip("/") for b in blogs],
        seeds={"home": first.base, "sports": builder.category_url(first, sport_category)},
        layout="blog",
    )
