"""A later state of a built web: a share of its articles replaced by new ones.

``changed(web, out, share)`` writes a copy of ``web`` to ``out`` in which ``share`` of the
articles (drawn at random) have moved to new URLs — a new item where the old one was, in every
page that linked to it — and the old URLs are gone (404). The copy's truth and link graph
follow. Used by ``bench focus --revisit`` to measure a second visit of a site.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit


def _file(web: Path, url: str) -> Path:
    parts = urlsplit(url)
    path = parts.path
    if path.endswith("/"):
        path += "index.html"
    name = path.lstrip("/") + (f"?{parts.query}" if parts.query else "")
    return web / "sites" / (parts.hostname or "") / name


def _renamed(url: str, n: int) -> str:
    """The same URL shape with a new id: the last run of digits gets ``n`` added, or a
    digit run is appended to the file name (a directory's URL: to its last directory's)."""
    head, sep, tail = url.rpartition("/")
    if not tail and urlsplit(head).path:
        return _renamed(head, n) + "/"
    runs = list(re.finditer(r"\d+", tail))
    if runs:
        m = runs[-1]
        new = str(int(m.group()) + 100000 + n).zfill(len(m.group()))
        return f"{head}{sep}{tail[: m.start()]}{new}{tail[m.end() :]}"
    stem, dot, ext = tail.rpartition(".")
    return f"{head}{sep}{stem or tail}{n}{dot}{ext if stem else ''}"


def _tail(url: str) -> bytes:
    """The last segment of a URL's path, a directory's with its slash (``ses491/``)."""
    path = url.rstrip("/")
    return (path.rsplit("/", 1)[1] + ("/" if url.endswith("/") else "")).encode()


def _relinked(data: bytes, old: str, new: str) -> bytes:
    """``data`` with its links to ``old`` pointing to ``new``: written out in full, else by
    the last segment of the path (a relative link)."""
    end = rb"(?=[\"'#])"
    full = re.sub(re.escape(old.encode()) + end, new.encode(), data)
    if full != data:
        return full
    return re.sub(rb"(?<=[/\"'])" + re.escape(_tail(old)) + end, _tail(new), data)


def changed(web: Path, out: Path, share: float = 0.05, seed: int = 0) -> list[str]:
    """Write the changed copy (module doc); return the new articles' URLs."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(web, out, copy_function=shutil.copy2)
    records = [json.loads(x) for x in (web / "truth.jsonl").read_text("utf-8").splitlines()]
    graph = [json.loads(x) for x in (web / "graph.jsonl").read_text("utf-8").splitlines()]
    articles = [
        r["url"] for r in records if r["kind"] == "article" and _file(web, r["url"]).exists()
    ]
    rng = random.Random(seed)  # noqa: S311 - a reproducible sample, not a secret
    moved = {
        u: _renamed(u, i) for i, u in enumerate(rng.sample(articles, int(len(articles) * share)))
    }
    for old, new in moved.items():
        _file(out, new).parent.mkdir(parents=True, exist_ok=True)
        _file(out, old).rename(_file(out, new))
    linking: dict[str, set[str]] = {}
    for row in graph:
        for target in row["links"]:
            if target in moved:
                linking.setdefault(row["url"], set()).add(target)
    for source, targets in linking.items():
        path = _file(out, moved.get(source, source))
        if not path.exists():
            continue
        data = path.read_bytes()
        for old in targets:
            data = _relinked(data, old, moved[old])
        path.write_bytes(data)
    with (out / "truth.jsonl").open("w", encoding="utf-8") as f:
        for r in records:
            r["url"] = moved.get(r["url"], r["url"])
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    with (out / "graph.jsonl").open("w", encoding="utf-8") as f:
        for row in graph:
            row["url"] = moved.get(row["url"], row["url"])
            row["links"] = [moved.get(u, u) for u in row["links"]]
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return sorted(moved.values())
