"""`timelypush bench replay`: the push decision judged again on crawls `bench match` kept.

A crawl's result depends on the order in which its concurrent fetches arrive: crawls of one
web spread by ±0.1 F1 on the Chinese one-keyword topic. Judging the *same* fetched pages again
takes that spread out, so two versions of the judgment are compared on equal input.

``bench match --keep DIR`` keeps each crawl's fetched pages in DIR; ``bench replay DIR`` judges
every kept crawl as ``bench match`` judges one (``_judge_all``: a fresh model, the pages in
fetch order, then the end of the visit) and, on the one-keyword topic, again after 20
feedback clicks on the replay's own pushes (``feedback_clicks``). Each crawl is judged in a
process of its own, as a worker that had served nothing else would judge it. Prints F1 per
web and topic (the mean over its kept crawls) and writes ``replay.json`` and ``replay.md``.
With ``--revisits N`` it also judges each crawl's second half, in fetch order, as revisits of N
pages that start from the model of its first half (``_revisits``), as a concern's short
revisits start from its last visit's saved model. With ``--visits N`` it cuts each crawl into
consecutive visits of N pages (the service's default budget is 200), each starting from the
state the one before saved, and counts each visit's pushes (``_visits``): what a concern
visited again and again pushes, visit after visit, as the crawl moves on to other parts of the
site. With ``--param NAME=VALUE`` (repeatable; a name in ``crawler.judgment.JUDGE_DEFAULTS``)
every judgment of the replay takes that parameter: a setting compared with the default on the
same pages, by two runs of the command. With ``--ranking N`` it also reports, every N pages,
how well the visit's own probabilities rank the on-topic items judged so far (``Ranking``): the
crawl steers by those values while the end of the visit pushes by its last fit, and the two can
be far apart.

The kept crawls are Python pickles, which can run code when read: replay only a folder that
``bench match --keep`` wrote on this machine.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import statistics
from pathlib import Path
from typing import Any

import typer

from lab.bench.match import CLICKS, PARAM_HELP, judgment_params, params_note

SUFFIX = ".crawl.pickle"


def save_capture(
    path: Path,
    web: Path,
    topic: str,
    keywords: list[str],
    pages: list[Any],
    matched: set[str],
    *,
    second: dict[str, Any] | None = None,
) -> Path:
    """Keep one crawl's fetched pages (their segmentation left out) for ``replay``; with
    ``second``, its second visit too (its ``pages``, ``matched``, the changed ``web`` and the
    ``new`` articles' URLs: ``lab.bench.second``)."""
    for page in [*pages, *(second or {}).get("pages", ())]:
        page.tokens = None
    target = path.with_name(path.name + SUFFIX)
    data = {
        "web": str(web.resolve()),
        "topic": topic,
        "keywords": list(keywords),
        "pages": pages,
        "matched": set(matched),
    }
    if second is not None:
        data["second"] = second
    target.write_bytes(pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL))
    return target


def replay_one(
    job: tuple[Path, int, int, int, dict[str, float], bool, int, int],
) -> dict[str, Any]:
    """Judge one kept crawl again: F1 of the replayed decision (and after the clicks); with a
    revisit size, also its revisits' counts (``_revisits``); with a visit size (and the first
    visit's, 0: the same), its consecutive visits' counts (``_visits``); with a ranking step,
    how well the visit's probabilities ranked its on-topic items as it went (``Ranking``).
    Every judgment of it takes the job's judgment ``params`` (``JUDGE_DEFAULTS`` keys; none:
    the defaults)."""
    from lab.bench.match import _judge_all, _prf, feedback_clicks
    from lab.truth import Truth

    path, revisit, visit, first, params, second, step, hosts = job
    data = pickle.loads(path.read_bytes())  # noqa: S301 (files `bench match --keep` wrote)
    pages, topic, keywords = data["pages"], data["topic"], data["keywords"]
    truth = Truth.load(Path(data["web"]))
    relevant = _on_topic(pages, truth, topic)
    ranking = Ranking(relevant, step) if step else None
    pushed, judge = _judge_all(pages, keywords, params=params, each=ranking)
    out: dict[str, Any] = {
        "crawl": path.name.removesuffix(SUFFIX),
        "web": Path(data["web"]).name,
        "lang": json.loads((Path(data["web"]) / "manifest.json").read_text()).get("lang", "zh"),
        "topic": topic,
        "model": _prf(pushed, relevant),
    }
    if ranking is not None:
        out["ranking"] = {"during": ranking.during, "end": ranking.auc(judge)}
    if topic == "football":
        clicks = feedback_clicks(pages, pushed, relevant)
        after, _ = _judge_all(pages, keywords, state=judge.state(), feedback=clicks, params=params)
        out["after_feedback"] = _prf(after, relevant)
    if revisit:
        out["revisits"] = _revisits(pages, keywords, truth, topic, revisit, params)
    if hosts:
        out["hosts"] = _hosts(pages, keywords, truth, topic, hosts, params)
    if second and "second" in data:
        out["second_visit"] = _second(pages, pushed, judge, data, params)
    if visit:
        bounds = _visit_bounds(len(pages), visit, first)
        out["visits"] = _visits(pages, keywords, truth, topic, bounds, params)
        covered = pages[: bounds[-1][1] if bounds else 0]
        # the whole crawl, when the visits cover it, was judged as one visit above
        whole = (
            pushed
            if len(covered) == len(pages)
            else _judge_all(covered, keywords, params=params)[0]
        )
        out["one_visit"] = _pushes(whole, covered, truth, topic)
    return out


class Ranking:
    """How well a visit's own probabilities rank its on-topic items while it runs: every
    ``step`` pages (distinct URLs), the area under the ROC curve (on-topic items over the
    other items) of each item's probability now (``Judge.probability_now``: what the crawl's
    steering counts a fetched item at) over the items judged so far, as ``[pages, auc]`` in
    ``during``. The crawl steers by these values; the end of the visit pushes by its last
    fit. Called by ``_judge_all`` after each page."""

    def __init__(self, relevant: set[str], step: int) -> None:
        self.relevant = relevant
        self.step = step
        self.pages: dict[str, None] = {}
        self.during: list[list[float | None]] = []

    def __call__(self, page: Any, judge: Any) -> None:
        self.pages[page.final_url] = None
        n = len(self.pages)
        if n == (len(self.during) + 1) * self.step:  # a page seen again does not count twice
            self.during.append([n, self.auc(judge)])

    def auc(self, judge: Any) -> float | None:
        """The AUC over the items judged so far, at their probability now (None until both
        kinds are among them)."""
        from lab.bench.trace import auc

        now = [(url, judge.probability_now(url)) for url in self.pages]
        pos = [p for url, p in now if p is not None and url in self.relevant]
        neg = [p for url, p in now if p is not None and url not in self.relevant]
        return auc(pos, neg)


def _second(
    pages: list[Any],
    pushed: set[str],
    judge: Any,
    data: dict[str, Any],
    params: dict[str, float] | None,
) -> dict[str, dict[str, int]]:
    """A kept second visit (``lab.bench.second``) judged again from the state of the first
    visit's judgment (``judge``, which pushed ``pushed``)."""
    from lab.bench.match import _judge_all
    from lab.bench.second import second_counts
    from lab.truth import Truth

    later = data["second"]
    again, _ = _judge_all(later["pages"], data["keywords"], state=_stored(judge), params=params)
    truth = Truth.load(Path(later["web"]))
    return second_counts(
        pages, pushed, later["pages"], again, set(later["new"]), truth, data["topic"]
    )


def _on_topic(pages: list[Any], truth: Any, topic: str) -> set[str]:
    """The on-topic items among ``pages``, by the truth."""
    return {p.final_url for p in pages if truth.relevant(p.final_url, topic, items=True)}


_COUNTS = ("revisits", "relevant", "correct", "wrong")
"""What ``_revisits`` counts, summed per web and topic by ``revisit_summary``."""


def _revisits(
    pages: list[Any],
    keywords: list[str],
    truth: Any,
    topic: str,
    size: int,
    params: dict[str, float] | None = None,
) -> dict[str, int]:
    """A kept crawl as a visit and its short revisits: the model of the crawl's first half
    (fetch order) judges the second half in revisits of ``size`` pages each, every revisit
    starting from that model's saved state, as a concern's next visits that find a few new
    pages start from the last visit's. Counts of pushes, correct and wrong, over them."""
    from lab.bench.match import _judge_all

    half = len(pages) // 2
    _, judge = _judge_all(pages[:half], keywords, params=params)
    state = _stored(judge)
    counts = dict.fromkeys(_COUNTS, 0)
    for start in range(half, len(pages) - size + 1, size):
        chunk = pages[start : start + size]
        pushed, _ = _judge_all(chunk, keywords, state=state, params=params)
        counts["revisits"] += 1
        for key, n in _pushes(pushed, chunk, truth, topic).items():
            counts[key] += n
    return counts


HOST_MIN_ON_TOPIC = 5
"""A host is judged alone (``--hosts``) only with at least this many on-topic items among its
fetched pages: with fewer, one page more or less moves its F1 by a tenth or more."""


def _hosts(
    pages: list[Any],
    keywords: list[str],
    truth: Any,
    topic: str,
    least: int,
    params: dict[str, float],
) -> list[dict[str, Any]]:
    """Each host the crawl fetched at least ``least`` pages of (and ``HOST_MIN_ON_TOPIC``
    on-topic items), its pages judged alone in fetch order, as a concern on that one site
    (the product's default scope) would judge them: a fresh model, then the visit's end."""
    from urllib.parse import urlsplit

    from lab.bench.match import _judge_all

    by_host: dict[str, list[Any]] = {}
    for page in pages:
        by_host.setdefault(urlsplit(page.final_url).hostname or "", []).append(page)
    out = []
    for host, own in by_host.items():
        relevant = _on_topic(own, truth, topic)
        if len(own) < least or len(relevant) < HOST_MIN_ON_TOPIC:
            continue
        pushed, _ = _judge_all(own, keywords, params=params)
        out.append({"host": host, "pages": len(own), **_pushes(pushed, own, truth, topic)})
    return out


def host_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per topic (in the order first seen): the hosts judged alone, their mean F1, how many of
    them fall under 0.3, and what they pushed right and wrong of their on-topic items."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault(run["topic"], []).extend(run.get("hosts", ()))
    out = []
    for topic, hosts in groups.items():
        rows = [_with_f1(h) for h in hosts]
        out.append(
            {
                "topic": topic,
                "hosts": len(rows),
                "f1": round(statistics.mean(r["f1"] for r in rows), 3) if rows else 0.0,
                "under_0.3": sum(1 for r in rows if r["f1"] < 0.3),
                "right": sum(r["correct"] for r in rows),
                "wrong": sum(r["wrong"] for r in rows),
                "on_topic": sum(r["relevant"] for r in rows),
            }
        )
    return out


def hosts_markdown(rows: list[dict[str, Any]], least: int) -> str:
    head = ["topic", "hosts", "F1 (mean)", "hosts under 0.3", "pushed right / wrong", "on topic"]
    body = [
        [
            r["topic"],
            r["hosts"],
            f"{r['f1']:.3f}",
            r["under_0.3"],
            f"{r['right']} / {r['wrong']}",
            r["on_topic"],
        ]
        for r in rows
    ]
    note = (
        f"Each host with at least {least} fetched pages and {HOST_MIN_ON_TOPIC} on-topic items, "
        "judged alone (one site, as a concern's default scope reads it):\n\n"
    )
    return note + _table(head, body)


def _visit_bounds(n: int, size: int, first: int = 0) -> list[tuple[int, int]]:
    """(start, end) of each visit over ``n`` pages: the first of ``first`` pages (0: ``size``),
    then of ``size`` each, as far as whole visits go."""
    bounds = []
    start, end = 0, first or size
    while end <= n:
        bounds.append((start, end))
        start, end = end, end + size
    return bounds


def _visits(
    pages: list[Any],
    keywords: list[str],
    truth: Any,
    topic: str,
    bounds: list[tuple[int, int]],
    params: dict[str, float] | None = None,
) -> list[dict[str, int]]:
    """A kept crawl as consecutive visits (``bounds``: ``_visit_bounds``) in fetch order, each
    judged from the state the visit before saved (as the service stores it): each visit's
    counts."""
    from lab.bench.match import _judge_all

    state = None
    out = []
    for start, end in bounds:
        chunk = pages[start:end]
        pushed, judge = _judge_all(chunk, keywords, state=state, params=params)
        state = _stored(judge)
        out.append(_pushes(pushed, chunk, truth, topic))
    return out


def _stored(judge: Any) -> dict[str, Any]:
    """A judge's state as the service stores it (a JSON round trip)."""
    stored: dict[str, Any] = json.loads(json.dumps(judge.state()))
    return stored


def _pushes(pushed: set[str], pages: list[Any], truth: Any, topic: str) -> dict[str, int]:
    """The on-topic items among ``pages``, and the ``pushed`` ones right and wrong."""
    relevant = _on_topic(pages, truth, topic)
    return {
        "relevant": len(relevant),
        "correct": len(pushed & relevant),
        "wrong": len(pushed - relevant),
    }


def _with_f1(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with the F1 of its summed counts."""
    from lab.bench.match import prf_counts

    _, _, f1 = prf_counts(row["correct"], row["correct"] + row["wrong"], row["relevant"])
    row["f1"] = round(f1, 3)
    return row


def _table(head: list[str], rows: list[list[Any]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def visit_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs' visit counts summed per language, topic and visit number (the first visit,
    the second…), with the F1 of the sums; a visit number only as far as every crawl of the
    group reaches."""
    groups: dict[tuple[str, str], list[list[dict[str, int]]]] = {}
    for run in runs:
        groups.setdefault((run["lang"], run["topic"]), []).append(run["visits"])
    out = []
    for (lang, topic), visits in groups.items():
        for k in range(min(len(v) for v in visits)):
            row: dict[str, Any] = {"lang": lang, "topic": topic, "visit": k + 1}
            row["crawls"] = len(visits)
            for key in ("relevant", "correct", "wrong"):
                row[key] = sum(v[k][key] for v in visits)
            out.append(_with_f1(row))
    return out


def one_visit_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per language and topic: the pages the visits covered, judged as those visits (their
    counts summed) and as one visit (``one_visit``) — what a first visit that reads as much
    as several would push."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for run in runs:
        row = groups.setdefault(
            (run["lang"], run["topic"]),
            {"lang": run["lang"], "topic": run["topic"], "crawls": 0}
            | {"visits": dict.fromkeys(_COUNTS[1:], 0), "one": dict.fromkeys(_COUNTS[1:], 0)},
        )
        row["crawls"] += 1
        for visit in run["visits"]:
            for key in _COUNTS[1:]:
                row["visits"][key] += visit[key]
        for key in _COUNTS[1:]:
            row["one"][key] += run["one_visit"][key]
    for row in groups.values():
        row["visits"], row["one"] = _with_f1(row["visits"]), _with_f1(row["one"])
    return list(groups.values())


def one_visit_markdown(rows: list[dict[str, Any]], size: int, first: int = 0) -> str:
    def counts(c: dict[str, Any]) -> str:
        return f"{c['correct']} / {c['wrong']} (F1 {c['f1']:.3f})"

    head = ["language", "topic", "crawls", "on-topic items"]
    return _table(
        [
            *head,
            f"as visits of {size}{_first_of(first)}: right / wrong",
            "as one visit: right / wrong",
        ],
        [
            [r["lang"], r["topic"], r["crawls"], r["one"]["relevant"]]
            + [counts(r[k]) for k in ("visits", "one")]
            for r in rows
        ],
    )


def _first_of(first: int) -> str:
    """What a column's heading adds when the first visit has its own size."""
    return f" (the first of {first})" if first else ""


def visits_markdown(rows: list[dict[str, Any]], size: int, first: int = 0) -> str:
    visit = f"visit of {size} pages{_first_of(first)}"
    head = ["language", "topic", visit, "crawls", "on-topic items"]
    return _table(
        [*head, "correct pushes", "wrong pushes", "F1"],
        [
            [r[k] for k in ("lang", "topic", "visit", "crawls", "relevant", "correct", "wrong")]
            + [f"{r['f1']:.3f}"]
            for r in rows
        ],
    )


def revisit_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs' revisit counts summed per web and topic, with the F1 of the sums."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for run in runs:
        row = groups.setdefault(
            (run["web"], run["topic"]),
            {"web": run["web"], "topic": run["topic"], "crawls": 0} | dict.fromkeys(_COUNTS, 0),
        )
        row["crawls"] += 1
        for key in _COUNTS:
            row[key] += run["revisits"][key]
    return [_with_f1(row) for row in groups.values()]


def revisits_markdown(rows: list[dict[str, Any]], size: int) -> str:
    head = ["web", "topic", f"revisits of {size} pages", "on-topic items", "correct pushes"]
    return _table(
        [*head, "wrong pushes", "F1"],
        [
            [r[k] for k in ("web", "topic", "revisits", "relevant", "correct", "wrong")]
            + [f"{r['f1']:.3f}"]
            for r in rows
        ],
    )


def replay(
    folder: Path,
    workers: int,
    revisit: int = 0,
    visit: int = 0,
    first: int = 0,
    params: dict[str, float] | None = None,
    second: bool = False,
    ranking: int = 0,
    hosts: int = 0,
) -> dict[str, Any]:
    """Judge every kept crawl in ``folder``, each in a fresh process (with ``revisit``, also
    its revisits of that many pages; with ``visit``, as visits of that many pages after a
    first of ``first``; with ``params``, every judgment with those judgment parameters; with
    ``ranking``, the ranking of its items every that many pages: ``Ranking``; with ``hosts``,
    each host of at least that many fetched pages judged alone: ``_hosts``)."""
    paths = sorted(folder.glob(f"*{SUFFIX}"))
    if not paths:
        raise typer.BadParameter(f"no kept crawls (*{SUFFIX}) in {folder}", param_hint="FOLDER")
    context = multiprocessing.get_context("spawn")
    runs = []
    with context.Pool(workers, maxtasksperchild=1) as pool:
        jobs = [
            (path, revisit, visit, first, dict(params or {}), second, ranking, hosts)
            for path in paths
        ]
        for done, run in enumerate(pool.imap(replay_one, jobs, chunksize=1), 1):
            runs.append(run)
            after = run.get("after_feedback", {}).get("f1")
            typer.echo(
                f"[{done}/{len(paths)}] {run['crawl']}: F1 {run['model']['f1']:.3f}"
                + (f", after {CLICKS} clicks {after:.3f}" if after is not None else "")
            )
    report: dict[str, Any] = {
        "params": dict(params or {}),
        "crawls": runs,
        "summary": summary(runs),
    }
    if revisit:
        report["revisits"] = revisit_summary(runs)
    if second:
        report["second_visits"] = second_summary(runs)
    if visit:
        report["visits"] = visit_summary(runs)
        report["one_visit"] = one_visit_summary(runs)
    if ranking:
        report["ranking"] = ranking_summary(runs)
    if hosts:
        report["hosts"] = host_summary(runs)
    return report


def ranking_summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per web and topic (in the order first seen): the mean AUC of the crawls' rankings
    (``Ranking``) at each point every crawl of the group reached with both kinds of item, and
    after the end of the visit."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault((run["web"], run["topic"]), []).append(run["ranking"])
    out = []
    for (web, topic), rankings in groups.items():
        points: dict[int, list[float]] = {}
        for r in rankings:
            for pages, auc in r["during"]:
                if auc is not None:
                    points.setdefault(int(pages), []).append(auc)
        during = [
            [pages, round(statistics.mean(aucs), 3)]
            for pages, aucs in sorted(points.items())
            if len(aucs) == len(rankings)
        ]
        ends = [r["end"] for r in rankings if r["end"] is not None]
        end = round(statistics.mean(ends), 3) if len(ends) == len(rankings) else None
        out.append(
            {"web": web, "topic": topic, "crawls": len(rankings), "during": during, "end": end}
        )
    return out


def ranking_markdown(rows: list[dict[str, Any]], step: int) -> str:
    """One row per web and topic: the mean AUC at each point (``–`` where a group has none)
    and after the end of the visit."""
    points = sorted({pages for r in rows for pages, _ in r["during"]})
    head = ["web", "topic", "crawls", *(f"at {p}" for p in points), "end of the visit"]
    table = []
    for r in rows:
        at = dict(r["during"])
        cells = [f"{at[p]:.3f}" if p in at else "–" for p in points]
        end = f"{r['end']:.3f}" if r["end"] is not None else "–"
        table.append([r["web"], r["topic"], r["crawls"], *cells, end])
    note = (
        f"How the visit's own probabilities ranked its on-topic items above the others (area "
        f"under the ROC curve, mean of the crawls), every {step} pages while it ran and after "
        "its end:\n\n"
    )
    return note + _table(head, table)


def second_summary(runs: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """The kept second visits' counts summed per web and topic, in the order first seen."""
    from lab.bench.second import add_counts

    groups: dict[tuple[str, str], dict[str, dict[str, int]]] = {}
    for run in runs:
        if "second_visit" in run:
            add_counts(groups.setdefault((run["web"], run["topic"]), {}), run["second_visit"])
    return [(web, topic, counts) for (web, topic), counts in groups.items()]


def summary(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mean F1 per web and topic, in the order first seen."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault((run["web"], run["topic"]), []).append(run)
    out = []
    for (web, topic), group in groups.items():
        row: dict[str, Any] = {
            "web": web,
            "topic": topic,
            "crawls": len(group),
            "f1": round(statistics.mean(r["model"]["f1"] for r in group), 3),
        }
        afters = [r["after_feedback"]["f1"] for r in group if "after_feedback" in r]
        if afters:
            row["after_feedback_f1"] = round(statistics.mean(afters), 3)
        out.append(row)
    return out


def markdown(report: dict[str, Any]) -> str:
    rows = []
    for row in report["summary"]:
        after = row.get("after_feedback_f1")
        shown = f"{after:.3f}" if after is not None else "–"
        rows.append([row["web"], row["topic"], row["crawls"], f"{row['f1']:.3f}", shown])
    return _table(["web", "topic", "kept crawls", "F1 (mean)", f"after {CLICKS} clicks"], rows)


def register(bench_cli: typer.Typer) -> None:
    """Add `bench replay` to the bench group."""

    @bench_cli.command("replay")
    def replay_cmd(
        folder: Path = typer.Argument(
            ..., exists=True, file_okay=False, help="A folder `bench match --keep` wrote."
        ),
        out: Path = typer.Option(Path("var/bench/replay"), "--out", help="Where results go."),
        workers: int = typer.Option(
            max(1, os.cpu_count() or 1), "--workers", min=1, help="Crawls judged at once."
        ),
        revisit: int = typer.Option(
            0,
            "--revisits",
            min=0,
            help="Also: each crawl's first half as a visit, its second half as revisits of "
            "this many pages judged from that visit's model (0: no).",
        ),
        visit: int = typer.Option(
            0,
            "--visits",
            min=0,
            help="Also: each crawl cut into consecutive visits of this many pages, each "
            "judged from the state the visit before saved, and the pages they cover judged as "
            "one visit (0: no).",
        ),
        first: int = typer.Option(
            0,
            "--first",
            min=0,
            help="With --visits: the first visit reads this many pages, as a concern's first "
            "visit reads more of the site (0: as many as the others).",
        ),
        param: list[str] = typer.Option(
            [],
            "--param",
            metavar="NAME=VALUE",
            help=PARAM_HELP + " Every judgment of the replay takes it.",
        ),
        second: bool = typer.Option(
            False,
            "--second",
            help="Also: the second visits `bench match --second --keep` kept, judged from "
            "their first visit's state; what they push.",
        ),
        ranking: int = typer.Option(
            0,
            "--ranking",
            min=0,
            help="Also: every this many pages, how well the visit's own probabilities (what "
            "the crawl steers by) rank the on-topic items judged so far, and after its end "
            "(area under the ROC curve; 0: no).",
        ),
        hosts: int = typer.Option(
            0,
            "--hosts",
            min=0,
            help="Also: each host the crawl fetched at least this many pages of (and "
            f"{HOST_MIN_ON_TOPIC} on-topic items), judged alone, as a concern on that one site "
            "would judge them; F1 per topic over the hosts (0: no).",
        ),
    ) -> None:
        """F1 of the push decision judged again on kept crawls (no crawling)."""
        params = judgment_params(param)
        report = replay(folder, workers, revisit, visit, first, params, second, ranking, hosts)
        out.mkdir(parents=True, exist_ok=True)
        (out / "replay.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
        text = params_note(params) + markdown(report)
        if revisit:
            text += "\n\n" + revisits_markdown(report["revisits"], revisit)
        if second:
            from lab.bench.second import markdown as second_markdown

            if report["second_visits"]:
                text += "\n\n" + second_markdown(report["second_visits"])
            else:
                text += "\n\nNo kept second visits (`bench match --second N --keep DIR`)."
        if visit:
            text += "\n\n" + visits_markdown(report["visits"], visit, first)
            text += "\n\n" + one_visit_markdown(report["one_visit"], visit, first)
        if ranking:
            text += "\n\n" + ranking_markdown(report["ranking"], ranking)
        if hosts:
            text += "\n\n" + hosts_markdown(report["hosts"], hosts)
        (out / "replay.md").write_text(text + "\n", encoding="utf-8")
        typer.echo(text)
        typer.echo(f"wrote {out / 'replay.json'} and {out / 'replay.md'}")
