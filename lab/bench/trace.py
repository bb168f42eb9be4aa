"""`timelypush bench trace`: what the default strategy saw of each link, and whether it was right.

One crawl of a lab web with the default strategy (``adaptive``, ``crawler.steering``) from one
seed. Every link the crawl ranks keeps the parts of its last priority (``Steering.priority``):

- **A** — the link's own text judged by the concern's model;
- **P** — what the link's parent page led to (sibling statistics);
- **S** — the items fetched under the link's host, section and URL pattern;
- **K** — how likely the link leads to an item rather than a hub;
- **value** — the priority itself.

Each fetch writes one line of ``trace.jsonl`` (fetch number, URL, the truth's kind, category
and on-topic flag, the probability the crawl counted for the page, and the parts of its
link's last priority). The command prints the on-topic items in each 100 fetches and, over
the item links the crawl ranked, how well each part ranks on-topic items above the rest (the
area under the ROC curve, 0.5: no better than chance): over every such link, over those
fetched, and over those left in the frontier. With ``--truth-probabilities`` the strategy
counts each fetched item as the truth says (1 on-topic, 0 not) instead of the judgment's
probability: what the same rules fetch with a perfect judgment of the pages already fetched.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import typer

from lab.bench.match import CRAWL_PARAM_HELP, crawl_params
from lab.judge import TOPIC_KEYWORDS

PARTS = ("A", "P", "S", "K", "value")
"""The parts of a link's priority the trace keeps."""


def traced_steering(
    profile: Any, params: dict[str, Any], truth: Any = None, topic: str = ""
) -> Any:
    """The default strategy, keeping the parts of every link's last priority and one row per
    fetched page; with ``truth``, counting each fetched item as the truth says."""
    from crawler.pagekind import ITEM
    from crawler.steering import Steering

    class Traced(Steering):
        def __init__(self) -> None:
            super().__init__(profile, params)
            self.parts: dict[str, tuple[float, ...]] = {}
            self.rows: list[dict[str, Any]] = []

        def priority(self, url: str, a: float, parent: float) -> float:
            value = super().priority(url, a, parent)
            keys = self._keys(url)
            rate = self._seeded_rate(keys, self._seed_area_of(url))
            self.parts[url] = (a, parent, rate, self._item_odds(url, keys[-1]), value)
            return value

        def _probability(self, page: Any, relevance: Any) -> float:
            if truth is not None and page.kind == ITEM:
                url = page.final_url or page.url
                return 1.0 if truth.relevant(url, topic, items=True) else 0.0
            return float(super()._probability(page, relevance))

        def observe(self, page: Any, probability: float, opened: bool) -> None:
            parts = self.parts.get(page.url)
            self.rows.append(
                {
                    "url": page.final_url or page.url,
                    "kind": page.kind,
                    "probability": round(probability, 4),
                    **(
                        {k: round(v, 4) for k, v in zip(PARTS, parts, strict=True)}
                        if parts is not None
                        else {}
                    ),
                }
            )
            super().observe(page, probability, opened)
            if len(self.rows) % 100 == 0:
                typer.echo(f"  {len(self.rows)} fetches", err=True)

    return Traced()


def auc(scores_on: list[float], scores_off: list[float]) -> float | None:
    """The chance that an on-topic item's score is above an off-topic one's (ties count a
    half); None without both."""
    if not scores_on or not scores_off:
        return None
    from crawler.judgment import roc_auc

    return round(roc_auc(scores_on, scores_off), 3)


def summarise(
    rows: list[dict[str, Any]], parts: dict[str, tuple[float, ...]], truth: Any, topic: str
) -> dict[str, Any]:
    """On-topic items per 100 fetches, and each part's AUC over the item links ranked."""

    def on_topic(url: str) -> bool:
        return bool(truth.relevant(url, topic, items=True))

    per_100 = [sum(on_topic(r["url"]) for r in rows[i : i + 100]) for i in range(0, len(rows), 100)]
    fetched = {r["url"] for r in rows}
    groups: dict[str, list[str]] = {"all": [], "fetched": [], "left": []}
    for url in parts:
        if truth.is_item(url):
            groups["all"].append(url)
            groups["fetched" if url in fetched else "left"].append(url)
    table: dict[str, dict[str, Any]] = {}
    for name, urls in groups.items():
        on = [u for u in urls if on_topic(u)]
        off = [u for u in urls if not on_topic(u)]
        table[name] = {"links": len(urls), "on_topic": len(on)} | {
            part: auc([parts[u][i] for u in on], [parts[u][i] for u in off])
            for i, part in enumerate(PARTS)
        }
    items = [r for r in rows if truth.is_item(r["url"])]
    judged = auc(
        [r["probability"] for r in items if on_topic(r["url"])],
        [r["probability"] for r in items if not on_topic(r["url"])],
    )
    return {
        "fetches": len(rows),
        "on_topic_items": sum(per_100),
        "per_100": per_100,
        "auc": table,
        "probability_auc": judged,
    }


def markdown(report: dict[str, Any]) -> str:
    s = report["summary"]
    lines = [
        f"# Trace: {report['web']}, {report['topic']} ({report['fetches']} fetches from "
        f"{report['seed']}, {report['concurrency']} at a time"
        f"{', truth as probabilities' if report['truth_probabilities'] else ''})",
        "",
        f"On-topic items fetched: **{s['on_topic_items']}**; per 100 fetches: "
        + ", ".join(str(n) for n in s["per_100"]),
        "",
        f"AUC of the probability counted for each fetched item: {s['probability_auc']}",
        "",
        "| item links | links | on-topic | " + " | ".join(PARTS) + " |",
        "|---|---|---|" + "---|" * len(PARTS),
    ]
    for name, row in s["auc"].items():
        cells = [str(row[p]) if row[p] is not None else "–" for p in PARTS]
        lines.append(f"| {name} | {row['links']} | {row['on_topic']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def _trace(
    web: Path,
    topic: str,
    pages: int,
    seed_key: str,
    truth_probabilities: bool,
    params: dict[str, float] | None = None,
    concurrency: int = 16,
) -> dict[str, Any]:
    from crawler import TopicProfile
    from lab.process import lab_server
    from lab.runner import THESIS_PARAMS, run_crawl
    from lab.truth import Truth

    manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
    lang = manifest.get("lang", "zh")
    truth = Truth.load(web)
    seed = manifest["seeds"][seed_key]
    keywords = TOPIC_KEYWORDS[lang][topic]
    merged = {**THESIS_PARAMS, **(params or {})}
    strategy = traced_steering(
        TopicProfile.from_keywords(keywords),
        merged,
        truth if truth_probabilities else None,
        topic,
    )
    with lab_server(web) as proxy:
        await run_crawl(
            truth,
            proxy=proxy,
            seeds=[seed],
            keywords=keywords,
            topic=topic,
            strategy="adaptive",
            max_pages=pages,
            items=True,
            instance=strategy,
            params=params,
            concurrency=concurrency,
        )
    rows = strategy.rows
    for n, row in enumerate(rows, 1):
        record = truth.records.get(row["url"], {})
        row.update(
            n=n,
            truth_kind=record.get("kind"),
            category=record.get("category"),
            on_topic=bool(truth.relevant(row["url"], topic, items=True)),
        )
    return {
        "web": web.name,
        "topic": topic,
        "seed": seed,
        "fetches": pages,
        "truth_probabilities": truth_probabilities,
        "concurrency": concurrency,
        "params": dict(params or {}),
        "rows": rows,
        "summary": summarise(rows, strategy.parts, truth, topic),
    }


def register(bench_cli: typer.Typer) -> None:
    """Add `bench trace` to the bench group."""

    @bench_cli.command("trace")
    def trace(
        web: Path = typer.Option(..., "--web", help="A web built by `timelypush lab build`."),
        topic: str = typer.Option("sports", "--topic", help="sports|football."),
        out: Path = typer.Option(Path("var/bench/trace"), "--out", help="Where results go."),
        pages: int = typer.Option(1000, "--pages", min=10, help="Fetches."),
        seed: str = typer.Option("sports", "--seed", help="Seed from the manifest: sports|home."),
        concurrency: int = typer.Option(
            16,
            "--concurrency",
            min=1,
            help="Fetches at a time (the lab lets one host take them all; the service's own "
            "limit per host is 2).",
        ),
        truth_probabilities: bool = typer.Option(
            False,
            "--truth-probabilities",
            help="Count each fetched item as the truth says instead of the judgment's "
            "probability (the same rules with a perfect judgment).",
        ),
        param: list[str] = typer.Option(
            [],
            "--param",
            metavar="NAME=VALUE",
            help=CRAWL_PARAM_HELP,
        ),
    ) -> None:
        """Each link's priority, part by part, against the truth: one crawl of the default
        strategy."""
        if topic not in ("sports", "football"):
            raise typer.BadParameter("choose sports or football", param_hint="--topic")
        params = crawl_params(param)
        logging.basicConfig(level=logging.WARNING)
        out.mkdir(parents=True, exist_ok=True)
        report = asyncio.run(
            _trace(web, topic, pages, seed, truth_probabilities, params, concurrency)
        )
        with (out / "trace.jsonl").open("w", encoding="utf-8") as f:
            for row in report.pop("rows"):
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        (out / "trace.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), "utf-8")
        text = markdown(report)
        (out / "trace.md").write_text(text + "\n", encoding="utf-8")
        typer.echo(text)
        typer.echo(f"wrote {out / 'trace.jsonl'}, trace.json and trace.md")
