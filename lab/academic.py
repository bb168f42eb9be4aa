"""An English lab web shaped like universities' sites, not news portals (``lab build --layout
academic``): a test of everything tuned on the news webs against another structure.

Each university (one host, ``www.lab-<name>.test``) has five departments, one per BBC label
(Sport and Exercise Science ← sport, Business School ← business, …). A department's home
links its course list, people and research pages; its documents become

* **course pages** (items) at directory URLs, ``/dept/<dept>/courses/<code>/``: a heading
  (``<h1>`` or ``<h2>``) with the course code and a story's headline, an instructor, two
  sentences of the story and short links — its lectures, a syllabus, the grades;
* **lecture pages** (items), ``…/<code>/lecture2.html``: up to three consecutive parts of the
  story's text under "Lecture n" titles;
* **project pages** (items), ``/dept/<dept>/projects/p3.html``: another story in full;

and the rest are hubs: the university's home (its departments and the partner universities),
the department's home, course list, people and research pages, syllabus and grade pages (a
line of text), and the staff's home pages at ``/~<name>/`` (their courses, projects and two
colleagues in the same field at other universities). Course links carry the course's code and
title; most other links are short labels. A page is on a topic as its story is (the judge of
:mod:`lab.judge`), so a football course's lectures are football too.

The output is the lab web's (:mod:`lab.builder`): ``sites/``, ``truth.jsonl`` (kinds
``home``, ``channel``, ``list``, ``special`` for hubs and ``article`` for items),
``graph.jsonl`` and ``manifest.json`` (``layout: academic``; seeds: the first university's
home and its sport department).
"""

from __future__ import annotations

import html
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from lab.builder import write_layout
from lab.corpus import Doc
from lab.judge import is_football

UNIVERSITIES: tuple[str, ...] = (
    "Northfield",
    "Eastbury",
    "Westmoor",
    "Southgate",
    "Riverton",
    "Hillcrest",
    "Lakeside",
    "Ashford",
)
DEPARTMENTS: dict[str, tuple[str, str, str]] = {
    "sports": ("Sport and Exercise Science", "sport-science", "SES"),
    "finance": ("Business School", "business", "BUS"),
    "ent": ("Film, Music and Media", "media", "FMM"),
    "politics": ("Politics and International Studies", "politics", "POL"),
    "tech": ("Computing", "computing", "CMP"),
}
"""Corpus category → (department name, URL name, course code prefix)."""
_FIRST = "Anna Ben Carla David Elena Frank Grace Hugo Irene James Kate Liam Maria Noah Olga Paul"
_LAST = "Adams Brown Clark Davis Evans Fisher Green Hall Irwin Jones King Lewis Moore Nash Owen"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass
class _Page:
    url: str
    title: str
    body: str
    links: list[tuple[str, str]]
    kind: str
    category: str = ""
    football: bool = False
    nav: list[tuple[str, str]] = field(default_factory=list)
    """The site's navigation bar (in ``<nav>``, before the content)."""


@dataclass
class _Web:
    pages: dict[str, _Page] = field(default_factory=dict)

    def add(self, page: _Page) -> None:
        self.pages[page.url] = page


def _parts(text: str, size: int = 700) -> list[str]:
    """The story's text in consecutive parts of about ``size`` characters, whole sentences."""
    parts, current = [], ""
    for sentence in _SENTENCE.split(text.strip()):
        current = f"{current} {sentence}".strip()
        if len(current) >= size:
            parts.append(current)
            current = ""
    if current and parts and len(current) < size // 3:
        parts[-1] = f"{parts[-1]} {current}"  # a last sentence or two stays with its part
    elif current:
        parts.append(current)
    return parts


def _list(links: list[tuple[str, str]]) -> str:
    items = "".join(
        f"<li><a href='{html.escape(u)}'>{html.escape(text)}</a></li>" for u, text in links
    )
    return f"<ul>{items}</ul>" if items else ""


def _html(page: _Page) -> bytes:
    nav = f"<nav>{_list(page.nav)}</nav>" if page.nav else ""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(page.title)}</title></head>"
        f"<body>{nav}<div class='content'>{page.body}{_list(page.links)}</div></body></html>"
    ).encode()


def _department(
    web: _Web,
    rng: random.Random,
    host: str,
    university: str,
    category: str,
    docs: list[Doc],
    staff: list[tuple[str, str]],
    colleagues: list[str],
) -> None:
    name, slug, prefix = DEPARTMENTS[category]
    base = f"{host}/dept/{slug}/"
    home = (f"{host}/", f"{university} University")
    nav = [home, (base, name), (f"{base}courses/", "Courses")]
    n_projects = max(1, len(docs) // 5)
    courses, projects = docs[n_projects:], docs[:n_projects]
    course_links: list[tuple[str, str]] = []
    numbers = rng.sample(range(100, 500), len(courses))
    for doc, number in zip(courses, numbers, strict=True):
        code = f"{prefix} {number}"
        url = f"{base}courses/{prefix.lower()}{number}/"
        football = is_football(doc)
        course_links.append((url, f"{code} {doc.title}"))
        lectures = []
        for i, part in enumerate(_parts(doc.body)[:3], start=1):
            lecture = f"{url}lecture{i}.html"
            lectures.append((lecture, f"Lecture {i}"))
            web.add(
                _Page(
                    lecture,
                    f"{code} - Lecture {i}",
                    f"<h3>{html.escape(code)}: lecture {i}</h3><p>{html.escape(part)}</p>",
                    [(url, "Back to the course page")],
                    "article",
                    category,
                    football,
                    nav,
                )
            )
        for extra, line in (("syllabus", "Weekly readings"), ("grades", "Grades are posted")):
            web.add(
                _Page(
                    f"{url}{extra}.html",
                    f"{code} {extra.title()}",
                    f"<h2>{extra.title()}</h2><p>{line} here during the term.</p>",
                    [(url, code)],
                    "special",
                    category,
                    nav=nav,
                )
            )
        teacher = rng.choice(staff)
        heading = rng.choice(("h1", "h2"))
        lead = " ".join(_SENTENCE.split(doc.body.strip())[:2])
        web.add(
            _Page(
                url,
                f"{code}: {doc.title}",
                f"<{heading}>{html.escape(code)} - {html.escape(doc.title)}</{heading}>"
                f"<p>Instructor: <a href='{teacher[0]}'>{html.escape(teacher[1])}</a>. "
                f"Tuesdays and Thursdays, autumn term.</p><p>{html.escape(lead)}</p>",
                [*lectures, (f"{url}syllabus.html", "Syllabus"), (f"{url}grades.html", "Grades")],
                "article",
                category,
                football,
                nav,
            )
        )
    project_links = []
    for i, doc in enumerate(projects, start=1):
        url = f"{base}projects/p{i}.html"
        project_links.append((url, doc.title))
        text = " ".join(_parts(doc.body, 1200)[:1])
        web.add(
            _Page(
                url,
                f"{doc.title} | {name}",
                f"<h1>{html.escape(doc.title)}</h1><p>{html.escape(text)}</p>",
                staff[:2],
                "article",
                category,
                is_football(doc),
                nav,
            )
        )
    for url, person in staff:
        taught = rng.sample(course_links, min(2, len(course_links)))
        peers = [(u, "Colleague") for u in rng.sample(colleagues, min(2, len(colleagues)))]
        web.add(
            _Page(
                url,
                f"{person}'s home page",
                f"<h1>{html.escape(person)}</h1><p>Lecturer, {html.escape(name)}, "
                f"{html.escape(university)} University.</p><h3>Teaching</h3>",
                [*taught, *rng.sample(project_links, min(2, len(project_links))), *peers],
                "special",
                category,
                nav=nav,
            )
        )
    for url, title, links in (
        (f"{base}courses/", f"{name} courses", course_links),
        (f"{base}people.html", f"{name}: people", staff),
        (f"{base}research.html", f"{name}: research", project_links),
    ):
        body = f"<h1>{html.escape(title)}</h1>"
        web.add(_Page(url, title, body, links, "list", category, nav=nav))
    web.add(
        _Page(
            base,
            f"{name} | {university} University",
            f"<h1>{html.escape(name)}</h1><p>Welcome to the department.</p>",
            [
                (f"{base}courses/", "Courses"),
                (f"{base}people.html", "People"),
                (f"{base}research.html", "Research"),
            ],
            "channel",
            category,
            nav=[home],
        )
    )


DEFAULT_SIZE = (6, 300)
"""(universities, stories per university) when not given."""


def build_academic(
    docs: list[Doc],
    out: Path,
    *,
    seed: int = 0,
    sites: int = DEFAULT_SIZE[0],
    articles: int = DEFAULT_SIZE[1],
) -> dict[str, object]:
    """Write the academic web of ``sites`` universities (at most eight) into ``out``, about
    ``articles`` stories each (±25 %); return the manifest."""
    rng = random.Random(seed)  # noqa: S311 (a reproducible lab web, not a secret)
    universities = UNIVERSITIES[: max(1, min(sites, len(UNIVERSITIES)))]
    pools: dict[str, list[Doc]] = {c: [] for c in DEPARTMENTS}
    for doc in sorted(docs, key=lambda d: d.source):
        if doc.category in pools and doc.body:
            pools[doc.category].append(doc)
    for pool in pools.values():
        rng.shuffle(pool)
    hosts = {u: f"http://www.lab-{u.lower()}.test" for u in universities}
    staff: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for u in universities:
        logins: set[str] = set()
        for category in DEPARTMENTS:
            people = []
            for _ in range(rng.randint(4, 6)):
                first, last = rng.choice(_FIRST.split()), rng.choice(_LAST.split())
                login = f"{last.lower()}{first[0].lower()}"
                login += str(sum(x.startswith(login) for x in logins) or "")
                logins.add(login)
                people.append((f"{hosts[u]}/~{login}/", f"{first} {last}"))
            staff[(u, category)] = people
    web = _Web()
    for u in universities:
        for category in DEPARTMENTS:
            share = articles / len(DEPARTMENTS)
            n = max(2, round(share * rng.uniform(0.75, 1.25)))
            pool = pools[category]
            taken, pools[category] = pool[:n], pool[n:]
            if len(taken) < 2:
                continue  # the corpus ran out for this department
            colleagues = [
                url
                for (v, c), people in staff.items()
                if c == category and v != u
                for url, _ in people
            ]
            _department(web, rng, hosts[u], u, category, taken, staff[(u, category)], colleagues)
        departments = [
            (f"{hosts[u]}/dept/{slug}/", name)
            for category, (name, slug, _) in DEPARTMENTS.items()
            if f"{hosts[u]}/dept/{slug}/" in web.pages
        ]
        partners = [(f"{hosts[v]}/", f"{v} University") for v in universities if v != u]
        web.add(
            _Page(
                f"{hosts[u]}/",
                f"{u} University",
                f"<h1>{u} University</h1><p>Departments and partners.</p>",
                [*departments, *partners],
                "home",
            )
        )
    return _write(web, out, hosts=list(hosts.values()))


def _write(web: _Web, out: Path, *, hosts: list[str]) -> dict[str, object]:
    first = hosts[0]

    def links(url: str) -> list[str]:
        page = web.pages[url]
        return list(dict.fromkeys(u for u, _ in [*page.nav, *page.links]))

    return write_layout(
        out,
        web.pages,
        page=lambda url: _html(web.pages[url]),
        links=links,
        hosts=[h.removeprefix("http://") for h in hosts],
        portal=lambda host: host.removeprefix("www."),
        seeds={"home": f"{first}/", "sports": f"{first}/dept/sport-science/"},
        lang="en",
        layout="academic",
    )
