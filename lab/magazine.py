"""A lab web shaped like online magazines, not portals or blogs (``lab build --layout
magazine``), in Chinese or English: a test of everything tuned on the other webs against
another structure.

Each magazine (a host of its own: ``www.name.test`` or ``name.test``) files its stories under
six to ten sections named its own way (Sport, Games & Play, Athletics Desk; 体坛, 运动, 赛场),
a subject split over two sections now and then, and one or two sections that name no subject
(Weekend, 周末) and mix several. Its stories are the items; the rest are hubs:

* **stories** at one URL style per magazine that names neither section nor date
  (``/read/<8 hex digits>``, ``/a/<base 36 id>.html``, ``/story?id=<n>``,
  ``/<headline words>-<6 digit id>``, a Chinese magazine's ``/<6 digit id>``): the headline in
  ``<h1>`` (the ``<title>`` has it alone or with the magazine's name, never the section), the
  section as a kicker above it on half the magazines and as a breadcrumb on the others, a
  byline with the date, the text (the corpus's body, or for a headline-only Chinese document
  its headline, keywords and a neutral line or two), now and then a story of another magazine
  on the same subject, a "Related" box (mostly the same section) and the magazine's "Most read"
  (every section); half the magazines add ``NewsArticle`` JSON-LD and ``og:type``, the others
  no structured data at all;
* **card grids** with an excerpt, author and date on each card: the home page (a lead story
  with a long excerpt, then a few cards of each section), each section's pages (older pages at
  ``?page=2`` or as "load more" pages ``/s/<section>/more/2``), topic pages (``/topic/<id>``:
  the stories that name one keyword), authors' pages and the results of a search
  (``/search?q=…``) for two popular terms;
* an **about** page (that names the group's other magazines).

Every page ends with the same big footer: every section, about twenty topics, the two searches
and the about page. A page is on a topic as its document is (the judge of :mod:`lab.judge`).

The output is the lab web's (:mod:`lab.builder`): ``sites/``, ``truth.jsonl`` (kinds ``home``,
``channel``, ``list``, ``special`` for hubs, ``article`` for stories), ``graph.jsonl`` and
``manifest.json`` (``layout: magazine``; seeds: the first magazine's home, and its section that
holds most sports stories).
"""

from __future__ import annotations

import html
import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from urllib.parse import quote

from lab.blog import Page, anchor, paragraphs, subject_of, subject_pools, url_slug, write_pages
from lab.corpus import Doc
from lab.judge import is_football

_MAGAZINES = {
    "en": (
        ("The Morning Ledger", "morningledger"),
        ("Northern Review", "northernreview"),
        ("The Weekly Lantern", "weeklylantern"),
        ("Metro Dispatch", "metrodispatch"),
        ("Coastline Times", "coastline"),
        ("The Evening Compass", "eveningcompass"),
        ("Riverside Monitor", "riverside"),
        ("The Standard Bearer", "standardbearer"),
    ),
    "zh": (
        ("晨光周刊", "chenguang"),
        ("南风观察", "nanfeng"),
        ("城市画报", "chengshi"),
        ("新知杂志", "xinzhi"),
        ("东方视点", "dongfang"),
        ("今日看台", "jinri"),
        ("半月谈录", "banyue"),
        ("青年参考", "qingnian"),
    ),
}
_SECTIONS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "sports": ("Sport", "Games & Play", "Athletics Desk", "The Field", "Scoreboard"),
        "finance": ("Business", "Money", "Markets", "The Economy", "Trade Floor"),
        "ent": ("Culture", "Arts & Screen", "Entertainment", "Showtime", "Stage and Screen"),
        "politics": ("Politics", "Westminster", "Power", "Public Affairs", "The State"),
        "tech": ("Technology", "Digital", "Gadgets", "Future", "Wired Life"),
    },
    "zh": {
        "sports": ("体坛", "运动", "赛场", "体育", "竞技"),
        "ent": ("娱乐", "星闻", "文娱", "影视"),
        "finance": ("财经", "钱经", "市场", "商业"),
        "tech": ("科技", "数码", "前沿", "互联网"),
        "game": ("游戏", "电竞", "玩家"),
        "edu": ("教育", "校园", "学堂"),
        "house": ("房产", "楼市", "安居"),
        "auto": ("汽车", "车界", "驾趣"),
        "culture": ("文化", "人文", "书香"),
        "mil": ("军事", "防务", "军情"),
        "world": ("国际", "环球", "天下"),
        "travel": ("旅游", "行走", "远方"),
        "agri": ("三农", "乡村", "田园"),
        "story": ("故事", "人间", "夜读"),
        "society": ("社会", "民生", "百态"),
        "politics": ("时政", "要闻", "政务"),
        "home": ("家居", "生活家"),
        "fashion": ("时尚", "风尚", "潮流"),
    },
}
"""Corpus category → the names a magazine may give its section."""
_MIXED = {
    "en": ("Weekend", "Long Reads", "Opinion", "Briefing", "Features"),
    "zh": ("周末", "深读", "观点", "精选", "专栏"),
}
"""Sections that name no subject and mix several."""
_AUTHORS = {
    "en": (
        "Anna Price",
        "Ben Walsh",
        "Carla Reid",
        "David Okafor",
        "Elena Ruiz",
        "Frank Moore",
        "Grace Lin",
        "Hugo Berg",
        "Irene Shaw",
        "James Kerr",
        "Kate Doyle",
        "Liam Nash",
    ),
    "zh": (
        "张伟",
        "李娜",
        "王磊",
        "刘洋",
        "陈静",
        "杨帆",
        "赵敏",
        "黄涛",
        "周婷",
        "吴昊",
        "徐瑶",
        "孙浩",
    ),
}
_WORDS = {
    "en": {
        "home": "Home",
        "about": "About us",
        "by": "By",
        "related": "Related",
        "most": "Most read",
        "sections": "Sections",
        "topics": "Topics",
        "search": "Search",
        "results": "Search results for “{q}”",
        "found": "{n} results",
        "topic": "Topic: {t}",
        "author": "Stories by {a}",
        "page": "page {n}",
        "more": "Load more",
        "next": "Next »",
        "prev": "« Previous",
        "also": "Also on {site}:",
        "lead": "Top story",
        "tagline": "News, ideas and weekend reading",
        "bio": "{site} is an independent magazine, part of a group with {others}.",
    },
    "zh": {
        "home": "首页",
        "about": "关于我们",
        "by": "文/",
        "related": "相关阅读",
        "most": "热门排行",
        "sections": "栏目",
        "topics": "专题",
        "search": "搜索",
        "results": "“{q}”的搜索结果",
        "found": "共 {n} 条结果",
        "topic": "专题：{t}",
        "author": "{a}的文章",
        "page": "第 {n} 页",
        "more": "加载更多",
        "next": "下一页»",
        "prev": "«上一页",
        "also": "{site}相关报道：",
        "lead": "头条",
        "tagline": "新闻、观点与周末阅读",
        "bio": "{site}是一份独立杂志，与{others}同属一个集团。",
    },
}
_DATES = {"en": ("%d %B %Y", "%B %d, %Y", "%Y-%m-%d"), "zh": ("%Y年%m月%d日", "%Y-%m-%d")}
_STYLES = ("read", "base36", "query", "slug")
_PREFIXES = ("s", "section", "c")
_PER_PAGE = 12
_STOP_EN = frozenset(
    (
        "about",
        "after",
        "again",
        "against",
        "their",
        "there",
        "these",
        "those",
        "which",
        "while",
        "would",
        "could",
        "should",
        "where",
        "being",
        "other",
        "under",
        "still",
        "since",
        "until",
        "first",
        "years",
        "world",
        "three",
        "plans",
        "calls",
        "faces",
        "backs",
        "makes",
        "takes",
        "gives",
        "warns",
        "wins",
        "says",
        "over",
        "into",
        "with",
        "from",
        "this",
        "that",
        "have",
        "will",
        "more",
    )
)
_WORD_EN = re.compile(r"[A-Za-z][A-Za-z'-]{3,}")
_NAME_EN = re.compile(r"(?<=[a-z,] )[A-Z][a-z]+(?: [A-Z][a-z]+)*")
"""Capitalised words inside a sentence: a name (a club, a company, a person: the last word
is the surname)."""
_DAYS_EN = frozenset(
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
)
"""Weekdays and months: capitalised, no topic."""


@dataclass(eq=False)
class _Section:
    name: str
    url: str
    subjects: tuple[str, ...]
    """The corpus categories it holds (several for a section that names no subject)."""
    items: list[_Item] = field(default_factory=list)


@dataclass(eq=False)
class _Item:
    doc: Doc
    id: int
    day: date
    section: _Section
    author: str
    text: list[str]
    """The story's paragraphs (made once: a headline-only document's filler is drawn)."""
    url: str = ""
    football: bool = False
    cites: tuple[str, _Item] | None = None
    """A story of another magazine (its name, the story) on the same subject."""


@dataclass
class _Magazine:
    name: str
    base: str
    lang: str
    style: str
    """How story URLs look (``_STYLES``)."""
    prefix: str
    """Sections' directory: ``/s/``, ``/section/`` or ``/c/``."""
    titled: bool
    """Story titles carry the magazine's name after the headline."""
    kicker: bool
    """The section shows as a kicker above the headline (else as a breadcrumb)."""
    structured: bool
    """Stories carry JSON-LD and Open Graph."""
    more: bool
    """Older section pages are "load more" pages (else ``?page=n``)."""
    date_format: str
    sections: list[_Section] = field(default_factory=list)
    authors: dict[str, str] = field(default_factory=dict)
    """Author → their page."""
    items: list[_Item] = field(default_factory=list)
    topics: list[tuple[str, str, list[_Item]]] = field(default_factory=list)
    """(URL, keyword, stories) of each topic page."""
    searches: list[tuple[str, str, list[_Item]]] = field(default_factory=list)
    most_read: list[_Item] = field(default_factory=list)

    def words(self, key: str, **kw: object) -> str:
        return _WORDS[self.lang][key].format(**kw)

    def day(self, item: _Item) -> str:
        return item.day.strftime(self.date_format)


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out or "0"


def _excerpt(item: _Item, lang: str, size: int) -> str:
    """The first ``size`` words (English) or characters (Chinese) of the story."""
    if lang == "en":
        words = " ".join(item.text).split()
        return " ".join(words[:size]) + (" …" if len(words) > size else "")
    text = "".join(item.text)
    return text[:size] + ("……" if len(text) > size else "")


def _keywords(doc: Doc, lang: str) -> set[str]:
    """Words a topic page may gather stories by: a Chinese document's keywords; an English
    headline's longer words and the names in the story's opening."""
    if lang == "zh":
        return {k for k in doc.keywords if 1 < len(k) <= 8}
    words = {w.lower() for w in _WORD_EN.findall(doc.title) if len(w) > 4}
    names = {m.split()[-1] for m in _NAME_EN.findall(doc.body[:600])}
    names = {n for n in names if len(n) > 3 and n not in _DAYS_EN}
    return {w for w in words | names if w.lower() not in _STOP_EN}


def _names(item: _Item, word: str, lang: str) -> bool:
    """The story names ``word`` (its keywords, headline or text)."""
    doc = item.doc
    if lang == "zh":
        return word in doc.keywords or word in doc.title or word in doc.body
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    return bool(pattern.search(doc.title) or pattern.search(doc.body))


class _Builder:
    def __init__(self, magazines: list[_Magazine], rng: random.Random) -> None:
        self.magazines = magazines
        self.rng = rng
        self.pages: dict[str, Page] = {}
        self._frames: dict[str, tuple[str, str]] = {}
        """Per magazine, its header and footer (the same on every page)."""

    def frame(self, mag: _Magazine) -> tuple[str, str]:
        cached = self._frames.get(mag.base)
        if cached is not None:
            return cached
        nav = " ".join(anchor(s.url, s.name) for s in mag.sections[:5])
        header = (
            f"<header><p class='brand'>{anchor(mag.base, mag.name)}</p><nav class='top'>{nav}</nav>"
            "</header>"
        )
        sections = "".join(f"<li>{anchor(s.url, s.name)}</li>" for s in mag.sections)
        topics = "".join(f"<li>{anchor(u, w)}</li>" for u, w, _ in mag.topics)
        searches = " ".join(anchor(u, q) for u, q, _ in mag.searches)
        footer = (
            f"<footer><div class='footer-sections'><h2>{mag.words('sections')}</h2>"
            f"<ul>{sections}</ul></div><div class='footer-topics'><h2>{mag.words('topics')}</h2>"
            f"<ul>{topics}</ul></div><p class='popular'>{mag.words('search')}: {searches}</p>"
            f"<p>{anchor(mag.base + 'about/', mag.words('about'))} · © {html.escape(mag.name)}</p>"
            "</footer>"
        )
        self._frames[mag.base] = (header, footer)
        return header, footer

    def add(self, mag: _Magazine, page: Page) -> None:
        header, footer = self.frame(mag)
        page.main = f"{header}<main>{page.main}</main>{footer}"
        self.pages[page.url] = page

    def card(self, mag: _Magazine, item: _Item) -> str:
        low, high = (25, 60) if mag.lang == "en" else (40, 100)
        excerpt = _excerpt(item, mag.lang, self.rng.randint(low, high))
        return (
            f"<div class='card'><h3>{anchor(item.url, item.doc.title)}</h3>"
            f"<p class='excerpt'>{html.escape(excerpt)}</p>"
            f"<p class='meta'><span class='author'>{html.escape(item.author)}</span> · "
            f"<time datetime='{item.day.isoformat()}'>{mag.day(item)}</time></p></div>"
        )

    def story(self, mag: _Magazine, item: _Item, related: list[_Item]) -> None:
        section = item.section
        if mag.kicker:
            label = f"<p>{anchor(section.url, section.name, 'kicker')}</p>"
        else:
            label = (
                f"<nav class='breadcrumb'>{anchor(mag.base, mag.words('home'))} › "
                f"{anchor(section.url, section.name)}</nav>"
            )
        text = "".join(f"<p>{html.escape(p)}</p>" for p in item.text)
        if item.cites is not None:
            other, story = item.cites
            text += f"<p class='elsewhere'>{mag.words('also', site=other)} "
            text += f"{anchor(story.url, story.doc.title)}</p>"
        rel = "".join(f"<li>{anchor(r.url, r.doc.title)}</li>" for r in related)
        most = "".join(f"<li>{anchor(r.url, r.doc.title)}</li>" for r in mag.most_read)
        main = (
            f"<article>{label}<h1>{html.escape(item.doc.title)}</h1>"
            f"<p class='byline'>{mag.words('by')}{' ' if mag.lang == 'en' else ''}"
            f"{anchor(mag.authors[item.author], item.author)}"
            f" · <time datetime='{item.day.isoformat()}'>{mag.day(item)}</time></p>"
            f"<div class='story-body'>{text}</div>"
            f"<aside class='related'><h2>{mag.words('related')}</h2><ul>{rel}</ul></aside>"
            f"</article><aside class='most-read'><h2>{mag.words('most')}</h2><ol>{most}</ol>"
            "</aside>"
        )
        head = ""
        if mag.structured:
            data = {
                "@context": "https://schema.org",
                "@type": "NewsArticle",
                "headline": item.doc.title,
                "datePublished": item.day.isoformat(),
                "author": {"@type": "Person", "name": item.author},
                "publisher": {"@type": "Organization", "name": mag.name},
            }
            ld = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
            head = (
                "<meta property='og:type' content='article'>"
                f"<meta property='og:title' content='{html.escape(item.doc.title)}'>"
                f"<script type='application/ld+json'>{ld}</script>"
            )
        title = f"{item.doc.title} — {mag.name}" if mag.titled else item.doc.title
        page = Page(item.url, title, main, "article", item.doc.category, item.football, head=head)
        self.add(mag, page)

    def listing(
        self,
        mag: _Magazine,
        first: str,
        heading: str,
        items: list[_Item],
        kind: str,
        category: str,
    ) -> None:
        """A card grid of ``items``, ``_PER_PAGE`` a page: ``first``, then its older pages
        (``first?page=2`` or the "load more" page ``first/more/2``); all on one page when
        ``first`` names no directory (a topic, a search)."""
        size = _PER_PAGE if first.endswith("/") else max(1, len(items))
        chunks = [items[i : i + size] for i in range(0, len(items), size)] or [[]]
        if mag.more:
            urls = [first] + [f"{first}more/{n}" for n in range(2, len(chunks) + 1)]
        else:
            urls = [first] + [f"{first}?page={n}" for n in range(2, len(chunks) + 1)]
        for n, (url, chunk) in enumerate(zip(urls, chunks, strict=True), start=1):
            cards = "".join(self.card(mag, item) for item in chunk)
            if mag.more:
                pager = anchor(urls[n], mag.words("more"), "load-more") if n < len(urls) else ""
            else:
                links = []
                if n > 1:
                    links.append(anchor(urls[n - 2], mag.words("prev")))
                links += [anchor(u, str(k)) for k, u in enumerate(urls, start=1) if k != n]
                if n < len(urls):
                    links.append(anchor(urls[n], mag.words("next")))
                pager = " ".join(links)
            title = heading if n == 1 else f"{heading} · {mag.words('page', n=n)}"
            self.add(
                mag,
                Page(
                    url,
                    f"{title} — {mag.name}",
                    f"<h1>{html.escape(title)}</h1><div class='grid'>{cards}</div>"
                    f"<nav class='pager'>{pager}</nav>",
                    kind if n == 1 else "list",
                    category,
                ),
            )

    def home(self, mag: _Magazine) -> None:
        """The lead story with a long excerpt, then a few cards of each section."""
        lead = max(mag.items[:10], key=lambda i: len("".join(i.text)))
        excerpt = _excerpt(lead, mag.lang, 240 if mag.lang == "en" else 300)
        rails = "".join(
            f"<section class='rail'><h2>{anchor(s.url, s.name)}</h2><div class='grid'>"
            + "".join(self.card(mag, i) for i in s.items[:4] if i is not lead)
            + "</div></section>"
            for s in mag.sections
        )
        main = (
            f"<h1 class='masthead'>{html.escape(mag.name)}</h1>"
            f"<section class='lead'><p class='label'>{mag.words('lead')}</p>"
            f"<h2>{anchor(lead.url, lead.doc.title)}</h2>"
            f"<p class='excerpt'>{html.escape(excerpt)}</p>"
            f"<p class='meta'>{html.escape(lead.author)} · {mag.day(lead)}</p></section>{rails}"
        )
        self.add(mag, Page(mag.base, f"{mag.name} — {mag.words('tagline')}", main, "home"))


DEFAULT_SIZE = (5, 220)
"""(magazines, stories per magazine) when not given."""


def build_magazine(
    docs: list[Doc],
    out: Path,
    *,
    lang: str,
    seed: int = 0,
    sites: int = DEFAULT_SIZE[0],
    articles: int = DEFAULT_SIZE[1],
) -> dict[str, object]:
    """Write the magazine web of ``sites`` magazines (at most eight) into ``out``, about
    ``articles`` stories each (±25 %); return the manifest."""
    rng = random.Random(seed)  # noqa: S311 (a reproducible lab web, not a secret)
    names = _SECTIONS[lang]
    pools = subject_pools(docs, names, rng)
    magazines = _magazines(rng, lang, sites, pools)
    for mag in magazines:
        _stories(rng, mag, pools, articles)
    _cite(rng, magazines)
    vocabulary = {w for mag in magazines for i in mag.items for w in _keywords(i.doc, lang)}
    for mag in magazines:
        _topics(rng, mag, vocabulary)
    builder = _Builder(magazines, rng)
    for mag in magazines:
        for item in mag.items:
            builder.story(mag, item, _related(rng, mag, item))
        _hubs(builder, mag)
    return _write(builder, magazines, out, lang)


def _magazines(
    rng: random.Random, lang: str, sites: int, pools: dict[str, list[Doc]]
) -> list[_Magazine]:
    """The magazines: host, URL style, titles, how a story shows its section, structured data
    or none, pagination, and their sections (each subject under one of its names, sometimes
    two sections; one or two mixed sections)."""
    chosen = _MAGAZINES[lang][: max(1, min(sites, len(_MAGAZINES[lang])))]
    n = len(chosen)
    # half the magazines each way, each trait drawn apart from the others
    kickers, structured, titled, more = (
        rng.sample([i < (n + 1) // 2 for i in range(n)], n) for _ in range(4)
    )
    styles = rng.sample(_STYLES, len(_STYLES))
    subjects = sorted([c for c, pool in pools.items() if len(pool) >= 30] or pools)
    magazines = []
    for i, (name, handle) in enumerate(chosen):
        host = rng.choice(("www.{h}.test", "{h}.test")).format(h=handle)
        mag = _Magazine(
            name,
            f"http://{host}/",
            lang,
            styles[i % len(styles)],
            rng.choice(_PREFIXES),
            titled[i],
            kickers[i],
            structured[i],
            more[i],
            rng.choice(_DATES[lang]),
        )
        _sections(rng, mag, subjects)
        authors = rng.sample(_AUTHORS[lang], rng.randint(6, 10))
        mag.authors = {
            a: f"{mag.base}author/{url_slug(a) if lang == 'en' else k + 1}/"
            for k, a in enumerate(authors)
        }
        magazines.append(mag)
    return magazines


def _sections(rng: random.Random, mag: _Magazine, subjects: list[str]) -> None:
    """Six to ten sections: sport and a few more subjects (every subject of the English
    corpus), one of them split in two now and then, and one or two mixed sections."""
    if mag.lang == "en":
        picked = list(subjects)
    else:
        others = [c for c in subjects if c != "sports"]
        picked = [c for c in subjects if c == "sports"]
        picked += rng.sample(others, min(len(others), rng.randint(4, 6)))
    names: list[tuple[str, tuple[str, ...]]] = []
    for subject in picked:
        variants = _SECTIONS[mag.lang][subject]
        count = 2 if rng.random() < (0.3 if mag.lang == "en" else 0.15) else 1
        names += [(v, (subject,)) for v in rng.sample(variants, count)]
    mixed = rng.sample(_MIXED[mag.lang], 1 if len(names) >= 8 else 2)
    for label in mixed:
        names.append((label, tuple(rng.sample(picked, min(3, len(picked))))))
    while len(names) < 6:  # a small corpus: a second section for some subject
        subject = rng.choice(picked)
        taken = {n for n, _ in names}
        free = [v for v in _SECTIONS[mag.lang][subject] if v not in taken]
        if not free:
            break
        names.append((rng.choice(free), (subject,)))
    rng.shuffle(names)
    for k, (label, held) in enumerate(names[:10]):
        slug = url_slug(label) if mag.lang == "en" else str(k + 1)
        mag.sections.append(_Section(label, f"{mag.base}{mag.prefix}/{slug}/", held))


def _stories(
    rng: random.Random, mag: _Magazine, pools: dict[str, list[Doc]], articles: int
) -> None:
    """The magazine's stories, newest first, a few a day, each in one of the sections that
    hold its subject (now and then a mixed one), by one of its authors."""
    homes: dict[str, list[_Section]] = {}
    mixed: dict[str, list[_Section]] = {}
    for s in mag.sections:
        for subject in s.subjects:
            (homes if len(s.subjects) == 1 else mixed).setdefault(subject, []).append(s)
    subjects = sorted(set(homes) | set(mixed))
    weights = [len(homes.get(c, ())) + 0.5 for c in subjects]
    n = max(6, round(articles * rng.uniform(0.75, 1.25)))
    day = date(2024, 6, 30)
    used: set[int] = set()
    authors = list(mag.authors)
    for _ in range(n):
        subject = rng.choices(subjects, weights)[0]
        if not pools[subject]:
            continue  # the corpus ran out for this subject
        doc = pools[subject].pop()
        options = homes.get(subject, [])
        if subject in mixed and (not options or rng.random() < 0.15):
            options = mixed[subject]
        section = rng.choice(options)
        if rng.random() < 0.3:
            day -= timedelta(days=1)
        number = _number(rng, mag.style, used)
        item = _Item(doc, number, day, section, rng.choice(authors), paragraphs(doc, mag.lang, rng))
        item.football = is_football(doc)
        item.url = _story_url(mag, item)
        section.items.append(item)
        mag.items.append(item)
    mag.sections = [s for s in mag.sections if s.items]


def _number(rng: random.Random, style: str, used: set[int]) -> int:
    """A story's id, unused on its magazine: 32 random bits (``read``), a large number
    (``base36``, ``query``) or six digits (``slug``)."""
    low, high = {
        "read": (1 << 28, (1 << 32) - 1),
        "base36": (36**5, 36**6 - 1),
        "query": (10_000, 999_999),
    }.get(style, (100_000, 999_999))
    while True:
        n = rng.randint(low, high)
        if n not in used:
            used.add(n)
            return n


def _story_url(mag: _Magazine, item: _Item) -> str:
    if mag.style == "read":
        return f"{mag.base}read/{item.id:08x}"
    if mag.style == "base36":
        return f"{mag.base}a/{_base36(item.id)}.html"
    if mag.style == "query":
        return f"{mag.base}story?id={item.id}"
    if mag.lang == "zh":
        return f"{mag.base}{item.id}"
    section_words = {w for s in mag.sections for w in url_slug(s.name).split("-")}
    words = [w for w in url_slug(item.doc.title).split("-") if w and w not in section_words]
    return f"{mag.base}{'-'.join(words[:7]) or 'story'}-{item.id}"


def _cite(rng: random.Random, magazines: list[_Magazine]) -> None:
    """Some stories link to a story of another magazine on the same subject."""
    by_subject: dict[str, list[tuple[_Magazine, _Item]]] = {}
    for mag in magazines:
        for item in mag.items:
            by_subject.setdefault(item.doc.category, []).append((mag, item))
    for mag in magazines:
        for item in mag.items:
            if rng.random() < 0.12:
                others = [(m, i) for m, i in by_subject[item.doc.category] if m is not mag]
                if others:
                    other, story = rng.choice(others)
                    item.cites = (other.name, story)


def _topics(rng: random.Random, mag: _Magazine, vocabulary: set[str]) -> None:
    """About twenty topic pages (keywords that five to fifteen stories name, the most common
    first, then keywords of three or four stories to fill up; a Chinese magazine's from every
    magazine's keywords), two popular searches,
    and the "Most read" (eight stories, every section)."""
    counts: Counter[str] = Counter()
    for item in mag.items:
        counts.update(_keywords(item.doc, mag.lang))
    if mag.lang == "zh":  # a keyword names many more headlines than its keyword lists
        counts = Counter({w: sum(_names(i, w, "zh") for i in mag.items) for w in vocabulary})
    ids = iter(rng.sample(range(100, 10_000), 40))
    common = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].lower()))[:150]
    for least in (5, 3):  # five stories or more; fewer where the corpus is thin (Chinese)
        for word, _ in common:
            if len(mag.topics) == 20:
                break
            if any(word.lower() == w.lower() for _, w, _ in mag.topics):
                continue
            stories = [i for i in mag.items if _names(i, word, mag.lang)]
            if len(stories) >= least:
                mag.topics.append((f"{mag.base}topic/{next(ids)}", word, stories[:15]))
    for _, word, _ in [t for t in mag.topics if t[1].isalnum()][:2]:
        stories = [i for i in mag.items if _names(i, word, mag.lang)][:20]
        mag.searches.append((f"{mag.base}search?q={quote(word.lower())}", word, stories))
    rounds = [list(s.items[:20]) for s in mag.sections]
    while len(mag.most_read) < min(8, len(mag.items)):
        for pool in rounds:
            if pool and len(mag.most_read) < 8:
                mag.most_read.append(pool.pop(rng.randrange(len(pool))))


def _related(rng: random.Random, mag: _Magazine, item: _Item) -> list[_Item]:
    """Four to six stories: the section's neighbours of ``item`` (in a small section, the same
    subject's stories of other sections too), one of another section now and then."""
    peers = item.section.items
    at = peers.index(item)
    near = [p for _, p in sorted(enumerate(peers), key=lambda kp: abs(kp[0] - at))][1:]
    count = rng.randint(4, 6)
    if len(near) < count:
        seen = {id(p) for p in near} | {id(item)}
        near += [i for i in mag.items if id(i) not in seen and i.doc.category == item.doc.category]
        seen |= {id(p) for p in near}
        near += [i for i in mag.items if id(i) not in seen]
    picked = near[:count]
    if rng.random() < 0.35:
        others = [i for i in mag.items if i.section is not item.section and i is not item]
        if others:
            picked = [*picked[: count - 1], rng.choice(others)]
    return picked


def _hubs(builder: _Builder, mag: _Magazine) -> None:
    """The magazine's hubs: home, each section's pages, topic, author and search pages, and
    the about page."""
    builder.home(mag)
    for s in mag.sections:
        category = subject_of(i.doc for i in s.items)
        builder.listing(mag, s.url, s.name, s.items, "channel", category)
    for url, word, stories in [*mag.topics, *mag.searches]:
        heading = mag.words("topic", t=word) if "/topic/" in url else mag.words("results", q=word)
        builder.listing(mag, url, heading, stories, "list", "")
    for author, url in mag.authors.items():
        stories = [i for i in mag.items if i.author == author]
        builder.listing(mag, url, mag.words("author", a=author), stories, "list", "")
    others = [m for m in builder.magazines if m is not mag]
    names = (
        ", ".join(m.name for m in others) if mag.lang == "en" else "、".join(m.name for m in others)
    )
    links = " ".join(anchor(m.base, m.name) for m in others)
    bio = html.escape(mag.words("bio", site=mag.name, others=names or "—"))
    builder.add(
        mag,
        Page(
            f"{mag.base}about/",
            f"{mag.words('about')} — {mag.name}",
            f"<h1>{mag.words('about')}</h1><p>{bio}</p><p class='group'>{links}</p>",
            "special",
        ),
    )


def _write(
    builder: _Builder, magazines: list[_Magazine], out: Path, lang: str
) -> dict[str, object]:
    pages = builder.pages
    first = magazines[0]
    sports = max(first.sections, key=lambda s: sum(i.doc.category == "sports" for i in s.items))
    return write_pages(
        out,
        pages,
        lang=lang,
        hosts=[m.base.removeprefix("http://").rstrip("/") for m in magazines],
        seeds={"home": first.base, "sports": sports.url},
        layout="magazine",
    )
