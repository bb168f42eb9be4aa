"""HTML for the lab web: one function per page kind, shaped like a Chinese news portal page."""

from __future__ import annotations

import hashlib
from html import escape

from lab.corpus import CATEGORY_NAMES
from lab.plan import PageSpec, Plan, Portal

_FILLER = (
    "记者获悉，相关情况仍在进一步了解之中。",
    "据了解，此事在网上引发了不少讨论。",
    "更多详细内容，请继续关注本站后续报道。",
    "对此，业内人士表示将持续关注事态发展。",
    "有网友留言称，希望能看到更多的后续消息。",
    "以上内容综合整理自网络公开信息。",
)
_TOP = ("nav", "crumb")
"""Blocks printed above the main content (the rest follow it)."""
_BLOCK_TITLES = {
    "related": "相关新闻",
    "hot": "热点排行",
    "cross": "合作媒体",
    "special": "专题推荐",
    "friends": "友情链接",
    "items": "最新消息",
    "pager": "分页",
}


def _pick(url: str, count: int) -> list[str]:
    """Filler sentences chosen from the URL (deterministic, no shared random state)."""
    digest = hashlib.sha1(url.encode()).digest()  # noqa: S324 - not security
    return [_FILLER[digest[i] % len(_FILLER)] for i in range(count)]


def body_paragraphs(page: PageSpec, *, stock: bool = True) -> list[str]:
    """The article text: the real body when the corpus has one, else title + keywords + filler
    (with ``stock`` off, title + keywords alone).

    The filler is neutral (no topic words), so a title-only document carries exactly the topic
    signal of its source: its title and keywords. It is stock sentences a site prints on many
    stories, and a web without them is one a judgment must read as well.
    """
    doc = page.doc
    if doc is None:
        return []
    if doc.body:
        text = doc.body
        sentences = [s + "。" for s in text.split("。") if s.strip()]
        return ["".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3)][:30]
    first = f"{doc.title}。"
    if doc.keywords:
        first += f"本文涉及：{'、'.join(doc.keywords)}。"
    return [first, "".join(dict.fromkeys(_pick(page.url, 3)))] if stock else [first]


class Renderer:
    """Turns a planned page into the HTML its portal would serve."""

    title_sep = "_"
    """Between an article's headline, its section and its portal in ``<title>``."""
    category_names = CATEGORY_NAMES

    def __init__(self, plan: Plan, *, titles: str = "section", stock: bool = True) -> None:
        self.plan = plan
        self.stock = stock
        """A headline-only story's text carries the portal's stock sentences after it."""
        self.portals = {p.domain: p for p in plan.portals}
        self.titles = titles
        """An article's ``<title>``: its headline, then the section and portal names
        (``section``), the portal's name alone (``site``) or nothing (``plain``)."""

    def anchor(self, url: str, page: PageSpec, role: str) -> str:
        """The anchor text a portal would print for a link to ``url`` from ``page``."""
        target = self.plan.pages.get(url)
        portal = self.portals[page.portal]
        if role == "nav":
            if url == portal.home:
                return f"{portal.name}首页"
            for category in portal.categories:
                if url == portal.channel(category):
                    return CATEGORY_NAMES[category]
        if role == "friends" and target is not None:
            return self.portals[target.portal].name
        if role == "pager" and target is not None:
            return target.title.split(" ")[-1].split("_")[0] if target.kind == "list" else "首页"
        if role == "dead":
            return "查看原文"
        if role == "special":
            return "专题报道"
        if target is None:
            return "详情"
        if role == "crumb":
            return (
                CATEGORY_NAMES.get(target.category, target.title)
                if target.kind == "channel"
                else target.title.split("_")[0]
            )
        return target.title.split("_")[0] if target.kind != "article" else target.title

    def _links(self, page: PageSpec, roles: tuple[str, ...], *, exclude: bool = False) -> str:
        out = []
        for role, urls in page.blocks.items():
            if not urls or (role in roles) == exclude:
                continue
            items = "".join(
                f'<li><a href="{escape(u)}">{escape(self.anchor(u, page, role))}</a>'
                + (
                    f'<span class="time">{self.plan.pages[u].date}</span>'
                    if role == "items" and u in self.plan.pages and self.plan.pages[u].date
                    else ""
                )
                + "</li>"
                for u in urls
            )
            if role == "nav":
                out.append(f'<div class="top-nav"><ul class="nav-list">{items}</ul></div>')
            elif role == "crumb":
                tail = "<li>正文</li>" if page.kind == "article" else ""
                out.append(f'<div class="crumb">{items}{tail}</div>')
            elif role == "footer":
                out.append(
                    f'<div class="footer"><ul>{items}</ul><p>Copyright © '
                    f"{escape(self.portals[page.portal].name)} 版权所有</p></div>"
                )
            else:
                title = _BLOCK_TITLES.get(role, "")
                out.append(f'<div class="box box-{role}"><h3>{title}</h3><ul>{items}</ul></div>')
        return "\n".join(out)

    def _head(self, page: PageSpec, portal: Portal) -> str:
        charset = (
            '<meta http-equiv="Content-Type" content="text/html; charset=gbk">'
            if portal.encoding == "gbk"
            else '<meta charset="utf-8">'
        )
        parts = [charset, f"<title>{escape(self.full_title(page, portal))}</title>"]
        if page.doc is not None and page.doc.keywords:
            parts.append(f'<meta name="keywords" content="{escape(",".join(page.doc.keywords))}">')
        paragraphs = body_paragraphs(page, stock=self.stock)
        if paragraphs:
            parts.append(f'<meta name="description" content="{escape(paragraphs[0][:80])}">')
        return "\n".join(parts)

    def full_title(self, page: PageSpec, portal: Portal) -> str:
        if page.kind != "article" or self.titles == "plain":
            return page.title
        sep = self.title_sep
        if self.titles == "site":
            return f"{page.title}{sep}{portal.name}"
        return f"{page.title}{sep}{self.category_names[page.category]}{sep}{portal.name}"

    def render(self, page: PageSpec) -> str:
        portal = self.portals[page.portal]
        main = ""
        if page.kind == "article":
            paragraphs = "".join(
                f"<p>{escape(p)}</p>" for p in body_paragraphs(page, stock=self.stock)
            )
            main = (
                f'<div class="main-content"><h1 class="main-title">{escape(page.title)}</h1>'
                f'<div class="date-source"><span class="date">{page.date}</span>'
                f'<span class="source">{escape(portal.name)}'
                f"{CATEGORY_NAMES[page.category]}</span></div>"
                f'<div class="article" id="article">{paragraphs}</div></div>'
            )
        elif page.kind == "static":
            main = (
                f'<div class="main-content"><h1>{escape(page.title)}</h1><p>'
                f"{escape(portal.name)}是一家综合性门户网站。</p></div>"
            )
        else:
            main = f'<h1 class="channel-title">{escape(page.title.split("_")[0])}</h1>'
        return (
            f'<!DOCTYPE html>\n<html lang="zh-CN">\n<head>\n{self._head(page, portal)}\n'
            f"</head>\n<body>\n{self._links(page, _TOP)}\n{main}\n"
            f"{self._links(page, _TOP, exclude=True)}\n</body>\n</html>\n"
        )

    def encode(self, page: PageSpec) -> bytes:
        portal = self.portals[page.portal]
        return self.render(page).encode(portal.encoding, errors="xmlcharrefreplace")
