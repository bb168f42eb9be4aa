"""HTML for the English lab web: the same page kinds as :mod:`lab.render`, with English
templates and HTML5 markup (``<nav>``, ``<main>``, ``<article>``, ``<aside>``) instead of the
Chinese portals' ``div`` boxes."""

from __future__ import annotations

import re
from html import escape

from lab.corpus import EN_CATEGORY_NAMES
from lab.plan import PageSpec, Portal
from lab.render import Renderer

_TOP = ("nav", "crumb")
_BLOCK_TITLES = {
    "related": "Related stories",
    "hot": "Most read",
    "cross": "From our partners",
    "special": "Special report",
    "friends": "Other news sites",
    "items": "Latest stories",
    "pager": "More pages",
    "dead": "See also",
    "tags": "Topics",
}
SEP = " | "
"""Between a page's own title and the portal's name in ``<title>``."""
_SENTENCE = re.compile(r"(?<=[.!?\"'])\s+(?=[A-Z\"'])")


def body_paragraphs_en(page: PageSpec) -> list[str]:
    """The article's real text in paragraphs of three sentences (at most 30 paragraphs)."""
    doc = page.doc
    if doc is None:
        return []
    sentences = [s.strip() for s in _SENTENCE.split(doc.body) if s.strip()]
    if not sentences:
        return [doc.title]
    return [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)][:30]


def _short(title: str) -> str:
    return title.split(SEP)[0]


class EnglishRenderer(Renderer):
    """The renderer of the English portals."""

    title_sep = SEP
    category_names = EN_CATEGORY_NAMES

    def anchor(self, url: str, page: PageSpec, role: str) -> str:
        target = self.plan.pages.get(url)
        portal = self.portals[page.portal]
        if role == "nav":
            if url == portal.home:
                return "Home"
            for category in portal.categories:
                if url == portal.channel(category):
                    return EN_CATEGORY_NAMES[category]
        if role == "friends" and target is not None:
            return self.portals[target.portal].name
        if role == "pager" and target is not None:
            if target.kind == "list":
                return _short(target.title).rsplit(", ", 1)[-1].capitalize()
            return "Front page"
        if role == "dead":
            return "Read the full story"
        if role == "special":
            return "In depth"
        if role == "tags" and target is not None:
            return _short(target.title).removeprefix("Topic: ")
        if target is None:
            return "More"
        if role == "crumb":
            return (
                EN_CATEGORY_NAMES.get(target.category, target.title)
                if target.kind == "channel"
                else _short(target.title)
            )
        return target.title if target.kind == "article" else _short(target.title)

    def _links(self, page: PageSpec, roles: tuple[str, ...], *, exclude: bool = False) -> str:
        out = []
        for role, urls in page.blocks.items():
            if not urls or (role in roles) == exclude:
                continue
            items = "".join(
                f'<li><a href="{escape(u)}">{escape(self.anchor(u, page, role))}</a>'
                + (
                    f' <time datetime="{self.plan.pages[u].date}">{self.plan.pages[u].date}</time>'
                    if role == "items" and u in self.plan.pages and self.plan.pages[u].date
                    else ""
                )
                + "</li>"
                for u in urls
            )
            if role == "nav":
                out.append(f'<nav class="site-nav"><ul>{items}</ul></nav>')
            elif role == "crumb":
                out.append(f'<nav class="breadcrumb"><ol>{items}</ol></nav>')
            elif role == "footer":
                out.append(
                    f'<footer><ul class="footer-links">{items}</ul><p>&copy; '
                    f"{escape(self.portals[page.portal].name)}. All rights reserved.</p></footer>"
                )
            else:
                title = _BLOCK_TITLES.get(role, "")
                out.append(
                    f'<aside class="panel panel-{role}"><h2>{title}</h2><ul>{items}</ul></aside>'
                )
        return "\n".join(out)

    def _head(self, page: PageSpec, portal: Portal) -> str:
        parts = [
            '<meta charset="utf-8">',
            f"<title>{escape(self.full_title(page, portal))}</title>",
        ]
        paragraphs = body_paragraphs_en(page)
        if paragraphs:
            parts.append(f'<meta name="description" content="{escape(paragraphs[0][:160])}">')
        return "\n".join(parts)

    def render(self, page: PageSpec) -> str:
        portal = self.portals[page.portal]
        if page.kind == "article":
            paragraphs = "".join(f"<p>{escape(p)}</p>" for p in body_paragraphs_en(page))
            main = (
                f'<main><article class="story"><h1 class="headline">{escape(page.title)}</h1>'
                f'<p class="byline"><time datetime="{page.date}">{page.date}</time> '
                f"{escape(portal.name)}, {EN_CATEGORY_NAMES[page.category]} desk</p>"
                f'<div class="story-body">{paragraphs}</div></article></main>'
            )
        elif page.kind == "static":
            main = (
                f"<main><h1>{escape(_short(page.title))}</h1><p>{escape(portal.name)} is an "
                "independent general news publisher.</p></main>"
            )
        else:
            main = f'<main><h1 class="section-title">{escape(_short(page.title))}</h1></main>'
        return (
            f'<!DOCTYPE html>\n<html lang="en-GB">\n<head>\n{self._head(page, portal)}\n'
            f'</head>\n<body>\n<header class="masthead"><a href="{escape(portal.home)}">'
            f"{escape(portal.name)}</a></header>\n{self._links(page, _TOP)}\n{main}\n"
            f"{self._links(page, _TOP, exclude=True)}\n</body>\n</html>\n"
        )
