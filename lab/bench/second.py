"""A concern's next visit, as the service makes it: what it pushes once the site has changed.

A concern's first visit reads the site (1,000 fetches by default); every later visit is short
(200 by default), starts from what the visits before learned (the crawl's steering state and
the judgment's model, with the items it was fitted on), and has one job: push what is new and
on the topic, once, and nothing else. ``bench match --second N`` measures that visit: after each
crawl, ``SHARE`` of the web's articles are replaced by new ones at new URLs
(``lab.mutate.changed``), and a visit of N fetches from the first crawl's state crawls the
changed web. ``second_counts`` sorts the items it fetched three ways:

* **new** — the articles that appeared since the first visit: the pushes a user waits for;
* **fetched again** — items the first visit fetched too: a push now is a page the first visit
  judged off the topic (a page is pushed once per concern, so those it pushed are not counted);
* **first fetched** — older items the first visit did not reach.

For each: the items fetched, the on-topic ones, pushes right and wrong by the truth. With
``--keep`` the second visit's pages are kept beside the first's, and ``bench replay --second``
judges them again (the first visit's pages, its state, then the second visit's pages) without
crawling.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

SHARE = 0.05
"""The share of a web's articles replaced before the second visit."""

GROUPS = ("new", "again", "first")
"""``second_counts``'s groups: new items, items the first visit fetched, the other items."""

COUNTS = ("fetched", "on_topic", "right", "wrong")


def second_counts(
    first_pages: Iterable[Any],
    first_pushed: Collection[str],
    pages: Iterable[Any],
    pushed: Collection[str],
    new: Collection[str],
    truth: Any,
    topic: str,
) -> dict[str, dict[str, int]]:
    """The second visit's items (``pages``, judged ``pushed``) by group (``GROUPS``): fetched,
    on-topic by ``truth`` (the changed web's), and pushed right and wrong; a page the first
    visit pushed is not pushed again (the service keeps one match per page and concern)."""
    before = {p.final_url for p in first_pages}
    out = {group: dict.fromkeys(COUNTS, 0) for group in GROUPS}
    for url in dict.fromkeys(p.final_url for p in pages):
        if not truth.is_item(url):
            continue
        group = "new" if url in new else "again" if url in before else "first"
        on = truth.relevant(url, topic)
        row = out[group]
        row["fetched"] += 1
        row["on_topic"] += on
        if url in pushed and url not in first_pushed:
            row["right" if on else "wrong"] += 1
    return out


def add_counts(total: dict[str, dict[str, int]], counts: dict[str, dict[str, int]]) -> None:
    """Add ``counts`` (``second_counts``) into ``total`` in place."""
    for group in GROUPS:
        row = total.setdefault(group, dict.fromkeys(COUNTS, 0))
        for key in COUNTS:
            row[key] += counts[group][key]


def markdown(rows: list[tuple[str, str, dict[str, dict[str, int]]]]) -> str:
    """A table of (web, topic, ``second_counts``) rows, with the precision of all pushes."""
    head = (
        "| web | topic | new items: fetched / on topic | pushed right / wrong "
        "| fetched again: fetched / on topic | pushed now right / wrong "
        "| first fetched: fetched / on topic | pushed right / wrong | precision of all pushes |"
    )
    lines = [head, "|---|---|---|---|---|---|---|---|---|"]
    for web, topic, counts in rows:
        cells = []
        for group in GROUPS:
            row = counts[group]
            cells += [f"{row['fetched']} / {row['on_topic']}", f"{row['right']} / {row['wrong']}"]
        right = sum(counts[g]["right"] for g in GROUPS)
        wrong = sum(counts[g]["wrong"] for g in GROUPS)
        precision = f"{right / (right + wrong):.3f}" if right + wrong else "–"
        lines.append(f"| {web} | {topic} | " + " | ".join(cells) + f" | {precision} |")
    return "\n".join(lines)
