"""`lab build`: write the planned web to disk with its ground truth beside it.

Layout of the output directory::

    OUT/sites/<host>/<path>   the served bytes (``/`` is ``index.html``), one robots.txt per host
    OUT/manifest.json         hosts, their encodings, the benchmark seeds, counts, ``lang`` (``en``
                              for the English web; absent for the Chinese one) (served? no)
    OUT/truth.jsonl           one line per page: url, host, portal, kind, category, football,
                              cluster, tunnel, source (never served)
    OUT/graph.jsonl           one line per page: url → outlinks (never served; used for recall)

Only ``OUT/sites`` is served by ``lab serve``.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lab.corpus import Doc, load_corpus
from lab.plan import URLS, Plan, make_plan, url_layout_ok
from lab.render import Renderer
from lab.render_en import EnglishRenderer

logger = logging.getLogger(__name__)

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
DEFAULT_SIZES: dict[str, tuple[int, int]] = {"zh": (6, 1000), "en": (4, 500)}
"""Language → (portals, articles per portal): the English corpus (2,225 BBC articles) fills four
portals of about 500 articles; the Chinese corpora fill six of about 1,000."""


def url_to_file(url: str) -> tuple[str, str]:
    """(host, relative file path) where the page for ``url`` is stored under OUT/sites.

    A query string stays in the file name (``/article.php?id=7`` → ``article.php?id=7``): the
    server looks the path plus query up first.
    """
    parts = urlsplit(url)
    path = parts.path or "/"
    if path.endswith("/"):
        path += "index.html"
    if parts.query:
        path += "?" + parts.query
    return parts.hostname or "", path.lstrip("/")


def truth_record(plan: Plan, url: str) -> dict[str, object]:
    page = plan.pages[url]
    return {
        "url": url,
        "host": page.host,
        "portal": page.portal,
        "kind": page.kind,
        "category": page.category,
        "football": page.football,
        "cluster": page.cluster,
        "tunnel": page.tunnel,
        "source": page.doc.source if page.doc else "",
    }


TITLES = ("section", "site", "plain")
"""What an article's ``<title>`` holds after the headline: the section and portal names, the
portal's name alone, or nothing (the lab's default is the first)."""


def write_files(
    out: Path,
    urls: Iterable[str],
    *,
    page: Callable[[str], bytes],
    hosts: Iterable[str],
    truth: Callable[[str], dict[str, object]],
    links: Callable[[str], list[str]],
    manifest: dict[str, object],
) -> None:
    """Write a built web into ``out`` (replacing a previous web there): each URL's ``page``
    under OUT/sites, a robots.txt per host, each URL's ``truth`` record and ``links`` (in URL
    order) and the ``manifest`` (module doc)."""
    out.mkdir(parents=True, exist_ok=True)
    sites = out / "sites"
    if sites.exists():
        shutil.rmtree(sites)
    ordered = sorted(urls)
    for url in ordered:
        host, rel = url_to_file(url)
        target = sites / host / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(page(url))
    for host in hosts:
        (sites / host / "robots.txt").write_bytes(ROBOTS)
    with (out / "truth.jsonl").open("w", encoding="utf-8") as fh:
        for url in ordered:
            fh.write(json.dumps(truth(url), ensure_ascii=False, sort_keys=True) + "\n")
    with (out / "graph.jsonl").open("w", encoding="utf-8") as fh:
        for url in ordered:
            fh.write(json.dumps({"url": url, "links": links(url)}) + "\n")
    (out / "manifest.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def write_layout(
    out: Path,
    pages: Mapping[str, Any],
    *,
    page: Callable[[str], bytes],
    links: Callable[[str], list[str]],
    hosts: list[str],
    portal: Callable[[str], str],
    seeds: dict[str, str],
    lang: str,
    layout: str,
) -> dict[str, object]:
    """Write a web of another layout than the news portals' (``lab.academic``, ``lab.blog``):
    no clusters, tunnels or dead links; each page (URL → an object with ``kind``, ``category``
    and ``football``) is an item when its kind is ``article``. Returns the manifest."""
    items = [p for p in pages.values() if p.kind == "article"]
    manifest: dict[str, object] = {
        "hosts": dict.fromkeys(sorted(hosts), "utf-8"),
        "portals": [portal(h) for h in hosts],
        "seeds": seeds,
        "pages": len(pages),
        "articles": len(items),
        "sports": sum(p.category == "sports" for p in items),
        "football": sum(p.football for p in items),
        "tunnels": 0,
        "cluster_pages": 0,
        "dead_links": 0,
        "lang": lang,
        "layout": layout,
    }

    def truth(url: str) -> dict[str, object]:
        record, host = pages[url], url_to_file(url)[0]
        return {
            "url": url,
            "host": host,
            "portal": portal(host),
            "kind": record.kind,
            "category": record.category,
            "football": record.football,
            "cluster": False,
            "tunnel": False,
            "source": "",
        }

    write_files(out, pages, page=page, hosts=hosts, truth=truth, links=links, manifest=manifest)
    return manifest


def write_web(
    plan: Plan, out: Path, *, titles: str = "section", stock: bool = True
) -> dict[str, object]:
    """Write ``plan`` into ``out`` (replacing a previous web there); return the manifest.

    ``titles``: one of ``TITLES``; ``stock``: a headline-only story's text carries the
    portal's stock sentences."""
    renderer = (EnglishRenderer if plan.lang == "en" else Renderer)(
        plan, titles=titles, stock=stock
    )
    hosts: dict[str, str] = {}
    for portal in plan.portals:
        for page in plan.pages.values():
            if page.portal == portal.domain:
                hosts[page.host] = portal.encoding
    pages = list(plan.pages.values())
    manifest: dict[str, object] = {
        "hosts": dict(sorted(hosts.items())),
        "portals": [p.domain for p in plan.portals],
        "seeds": plan.seeds,
        "pages": len(pages),
        "articles": sum(p.kind == "article" for p in pages),
        "sports": sum(p.category == "sports" for p in pages),
        "football": sum(p.football for p in pages),
        "tunnels": sum(p.tunnel for p in pages),
        "cluster_pages": sum(p.cluster for p in pages),
        "dead_links": len(plan.dead),
    }
    if plan.lang != "zh":  # absent means zh: the Chinese web's manifest stays as it was
        manifest["lang"] = plan.lang
    if titles != "section":  # absent means titles with section and portal names
        manifest["titles"] = titles
    if plan.urls != "channels":  # absent means a host per channel
        manifest["urls"] = plan.urls
    if not stock:  # absent means stock sentences after a headline-only story
        manifest["stock_lines"] = False
    write_files(
        out,
        plan.pages,
        page=lambda url: renderer.encode(plan.pages[url]),
        hosts=hosts,
        truth=lambda url: truth_record(plan, url),
        links=lambda url: list(
            dict.fromkeys(u for urls in plan.pages[url].blocks.values() for u in urls)
        ),
        manifest=manifest,
    )
    return manifest


def build(
    corpus: Path | list[Doc],
    out: Path,
    *,
    seed: int = 0,
    sites: int = 6,
    articles: int = 1000,
    lang: str = "zh",
    titles: str = "section",
    urls: str = "channels",
    stock: bool = True,
) -> dict[str, object]:
    """Build the lab web in ``lang`` from a corpus directory (or documents) into ``out``
    (``urls``: the Chinese web's URL layout, see ``lab.plan.URLS``; ``stock``: see
    ``write_web``)."""
    if titles not in TITLES:
        raise ValueError(f"titles: expected one of {', '.join(TITLES)}, got {titles!r}")
    if not url_layout_ok(urls, lang):
        raise ValueError(f"urls: the Chinese web takes one of {', '.join(URLS)}, got {urls!r}")
    docs = load_corpus(corpus, lang) if isinstance(corpus, Path) else corpus
    out.mkdir(parents=True, exist_ok=True)
    plan = make_plan(docs, seed=seed, sites=sites, articles=articles, lang=lang, urls=urls)
    manifest = write_web(plan, out, titles=titles, stock=stock)
    logger.info("lab web: %s pages on %s hosts in %s", manifest["pages"], len(plan.portals), out)
    return manifest
