"""`timelypush bench match`: what the push decision pushes, against the lab webs' ground truth.

For each lab web (``--web``, repeatable; Chinese or English, its manifest says) and each topic
(coarse: zh 体育,足球,篮球,比赛 / en sports,football,tennis,rugby; fine: one keyword, zh 足球 /
en football), one crawl of ``--pages`` fetches from the web's home page with the product
defaults (default strategy, the judgment model at the default sensitivity). Every fetched page
is then judged by three rules over the *same* fetched pages:

* ``model`` — the product's decision (the crawl's ``matched``, end-of-visit rows included);
* ``kp`` — the seed papers' keyword-position rule (T 0.5), on items and hubs alike, as before;
* ``anywhere`` — a user keyword anywhere on the page.

Reported per rule: precision, recall among the on-topic *items* fetched, F1, and hub pages
pushed. On the fine topic, 20 simulated feedback clicks follow: the user reads the pushed
messages newest first and marks each one right (👍) or wrong (👎) by the truth, up to 20; the
model is built again as the next visit builds it (the first visit's state plus the verdicts)
and judges the same pages. Each sensitivity setting (精确 / 均衡 / 宽泛) is reported by
judging the same fetched pages again at its threshold. CPU per page of the judgment is timed by
replaying the fetched pages through a fresh model. Writes ``match.json``, ``match.md`` and
``match_<web>.png``; with ``--keep DIR``, also each crawl's fetched pages, which
``bench replay DIR`` judges again without crawling. With ``--second N`` each crawl is followed
by a next visit of N fetches of the web after 5 % of its articles changed, from the crawl's
state, and what that visit pushes is counted (``lab.bench.second``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import typer

logger = logging.getLogger(__name__)

CLICKS = 20


def prf_counts(correct: int, pushed: int, relevant: int) -> tuple[float, float, float]:
    """(precision, recall, F1) of ``pushed`` pushes of which ``correct`` are among
    ``relevant`` on-topic items."""
    p = correct / pushed if pushed else 0.0
    r = correct / relevant if relevant else 0.0
    return p, r, 2 * p * r / (p + r) if p + r else 0.0


def _prf(pushed: set[str], relevant: set[str]) -> dict[str, float]:
    p, r, f = prf_counts(len(pushed & relevant), len(pushed), len(relevant))
    return {
        "precision": round(p, 3),
        "recall": round(r, 3),
        "f1": round(f, 3),
        "pushed": len(pushed),
    }


async def _crawl(
    proxy: str,
    seed: str,
    keywords: list[str],
    pages: int,
    params: dict[str, float] | None = None,
    state: dict[str, Any] | None = None,
    concurrency: int = 16,
) -> tuple[list[Any], set[str], dict[str, Any]]:
    """One visit with the product defaults (from ``state``, a visit's saved steering and
    judgment state: a next visit): its fetched pages, what it pushed, and its state. With
    ``concurrency`` 1 the pages arrive in the same order every run."""
    from crawler import CrawlConfig, TopicProfile, crawl
    from lab.runner import lab_fetch_config

    state = state or {}
    config = CrawlConfig(
        max_pages=pages,
        scope="any",
        fetch=lab_fetch_config(proxy, concurrency),
        params=dict(params or {}),
        strategy_state=state.get("steer"),
        judge_state=state.get("judge"),
        checkpoint_every=0,  # the final state only
    )
    fetched: list[Any] = []
    matched: set[str] = set()
    saved: list[dict[str, Any]] = []
    profile = TopicProfile.from_keywords(keywords)
    async for event in crawl([seed], profile, config, on_checkpoint=saved.append):
        if event.page is not None and not event.error:
            fetched.append(event.page)
        if event.matched:
            matched.add(event.final_url)
    after = {k: saved[-1].get(k) for k in ("steer", "judge")} if saved else {}
    return fetched, matched, after


def _judge_all(
    pages: list[Any],
    keywords: list[str],
    *,
    each: Callable[[Any, Any], None] | None = None,
    **kwargs: Any,
) -> tuple[set[str], Any]:
    """Replay the visit through a model (as the service judges it); pushed URLs and the model.
    ``each(page, judge)`` is called after each page is judged (before the visit's end)."""
    from crawler import Judge, TopicProfile

    judge = Judge(TopicProfile.from_keywords(keywords), **kwargs)
    pushed = set()
    for page in pages:
        page.tokens = None
        if judge.judge(page).relevant:
            pushed.add(page.final_url)
        if each is not None:
            each(page, judge)
    pushed |= {url for url, _ in judge.finish()}
    return pushed, judge


def _topic_run(
    truth: Any,
    lang: str,
    topic: str,
    keywords: list[str],
    pages: list[Any],
    matched: set[str],
    params: dict[str, float] | None = None,
) -> dict[str, Any]:
    from crawler import TopicProfile, score_page
    from crawler import text as textmod
    from crawler.judgment import JUDGE_DEFAULTS, SENSITIVITY

    items = {p.final_url for p in pages if truth.is_item(p.final_url)}
    hubs = {p.final_url for p in pages} - items
    relevant = {u for u in items if truth.relevant(u, topic)}
    profile = TopicProfile.from_keywords(keywords)
    kp = {p.final_url for p in pages if score_page(p, profile).matched}
    anywhere = {
        p.final_url
        for p in pages
        if profile.match_user(
            textmod.tokenize(" ".join((p.title, p.meta_keywords, p.description, p.text)))
        )
    }
    params = dict(params or {})
    started = time.process_time()
    replayed, judge = _judge_all(pages, keywords, params=params)
    cpu_ms = (time.process_time() - started) / max(1, len(pages)) * 1000
    out: dict[str, Any] = {
        "topic": topic,
        "keywords": keywords,
        "fetched": len(pages),
        "items": len(items),
        "on_topic_items": len(relevant),
        "judgment_cpu_ms_per_page": round(cpu_ms, 2),
        "learned": [t for t, _ in judge.learned_terms(12)],
    }
    for name, pushed in (("model", matched), ("kp", kp), ("anywhere", anywhere)):
        out[name] = {**_prf(pushed, relevant), "hubs_pushed": len(pushed & hubs)}
    # each sensitivity setting, by judging the same fetched pages again at its threshold (the
    # default's row is the timed replay above, not the crawl's own decision: the two differ by
    # the order in which concurrent fetches arrived)
    out["sensitivity"] = {}
    for setting, threshold in SENSITIVITY.items():
        if threshold == params.get("threshold", JUDGE_DEFAULTS["threshold"]):
            pushed = replayed
        else:
            pushed, _ = _judge_all(pages, keywords, params={**params, "threshold": threshold})
        out["sensitivity"][setting] = {
            **_prf(pushed, relevant),
            "threshold": threshold,
            "hubs_pushed": len(pushed & hubs),
        }
    if topic == "football":
        clicks = feedback_clicks(pages, matched, relevant)
        after, _ = _judge_all(pages, keywords, state=judge.state(), feedback=clicks, params=params)
        out["after_feedback"] = {
            **_prf(after, relevant),
            "hubs_pushed": len(after & hubs),
            "clicks": len(clicks),
            "thumbs_down": sum(1 for c in clicks if not c.label),
        }
    return out


def feedback_clicks(pages: list[Any], pushed: set[str], relevant: set[str]) -> list[Any]:
    """The user's verdicts: the pushed messages read newest first, each marked right (👍) or
    wrong (👎) by the truth, up to ``CLICKS``."""
    from crawler import Example

    by_time = [p for p in reversed(pages) if p.final_url in pushed]
    return [
        Example(p.title, f"{p.description}\n{p.text[:1000]}", p.final_url in relevant, p.final_url)
        for p in by_time[:CLICKS]
    ]


def _median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of repeated crawls of one topic, the run with the median model F1 (the lower middle of
    an even count), with every run's model and after-feedback F1 beside it."""
    ranked = sorted(runs, key=lambda run: run["model"]["f1"])
    chosen = dict(ranked[(len(ranked) - 1) // 2])
    chosen["repeats"] = {
        rule: [run[rule]["f1"] for run in runs]
        for rule in ("model", "after_feedback")
        if rule in chosen
    }
    return chosen


async def _bench(
    webs: list[Path],
    out: Path,
    pages: int,
    seed_key: str,
    repeats: int = 1,
    keep: Path | None = None,
    params: dict[str, float] | None = None,
    second: int = 0,
) -> dict[str, Any]:
    from lab.bench.second import second_counts
    from lab.judge import TOPIC_KEYWORDS
    from lab.process import lab_server
    from lab.truth import Truth

    params = dict(params or {})
    report: dict[str, Any] = {
        "pages": pages,
        "repeats": repeats,
        "params": params,
        "second": second,
        "webs": [],
    }
    for web in webs:
        manifest = json.loads((web / "manifest.json").read_text(encoding="utf-8"))
        lang = manifest.get("lang", "zh")
        truth = Truth.load(web)
        seed = manifest["seeds"][seed_key]
        runs = []
        changed_web: tuple[Path, set[str], Any] | None = None
        with lab_server(web) as proxy:
            for topic, keywords in TOPIC_KEYWORDS[lang].items():
                repeated = []
                for n in range(repeats):
                    fetched, matched, state = await _crawl(proxy, seed, keywords, pages, params)
                    run = _topic_run(truth, lang, topic, keywords, fetched, matched, params)
                    later = None
                    if second:
                        if changed_web is None:
                            changed_web = _changed(web, out)
                        later = await _second_visit(
                            changed_web, seed, keywords, second, params, state
                        )
                        run["second_visit"] = second_counts(
                            fetched, matched, *later, changed_web[1], changed_web[2], topic
                        )
                    if keep is not None:
                        from lab.bench.replay import save_capture

                        name = f"{web.name}.{topic}.{n}"
                        extra = None
                        if later is not None and changed_web is not None:
                            extra = {
                                "pages": later[0],
                                "matched": later[1],
                                "web": str(changed_web[0].resolve()),
                                "new": sorted(changed_web[1]),
                            }
                        save_capture(
                            keep / name, web, topic, keywords, fetched, matched, second=extra
                        )
                    repeated.append(run)
                    typer.echo(_line(web.name, run))
                runs.append(_median_run(repeated))
        report["webs"].append({"web": str(web), "lang": lang, "seed": seed, "runs": runs})
        _plot(report["webs"][-1], out / f"match_{web.name}.png")
        (out / "match.json").write_text(json.dumps(report, ensure_ascii=False, indent=1), "utf-8")
        text = params_note(params) + markdown(report)
        (out / "match.md").write_text(text + "\n", encoding="utf-8")
    return report


def _changed(web: Path, out: Path) -> tuple[Path, set[str], Any]:
    """The web with ``lab.bench.second.SHARE`` of its articles replaced (written under
    ``out``): its folder, the new articles' URLs and its truth."""
    from lab.bench.second import SHARE
    from lab.mutate import changed
    from lab.truth import Truth

    later = out / f"{web.name}-changed"
    new = set(changed(web, later, SHARE))
    return later, new, Truth.load(later)


async def _second_visit(
    changed_web: tuple[Path, set[str], Any],
    seed: str,
    keywords: list[str],
    pages: int,
    params: dict[str, float] | None,
    state: dict[str, Any],
) -> tuple[list[Any], set[str]]:
    """A next visit of ``pages`` fetches of the changed web from a first visit's ``state``:
    its fetched pages and what it pushed."""
    from lab.process import lab_server

    with lab_server(changed_web[0]) as proxy:
        fetched, matched, _ = await _crawl(proxy, seed, keywords, pages, params, state)
    return fetched, matched


def _line(web: str, run: dict[str, Any]) -> str:
    parts = [f"{web} {run['topic']}: {run['on_topic_items']} on-topic of {run['items']} items"]
    for name in ("model", "kp", "anywhere", "after_feedback"):
        if name in run:
            r = run[name]
            parts.append(
                f"{name} P {r['precision']:.3f} R {r['recall']:.3f} F1 {r['f1']:.3f} "
                f"hubs {r['hubs_pushed']}"
            )
    if run.get("sensitivity"):
        parts.append(
            "pushed at " + ", ".join(f"{k} {v['pushed']}" for k, v in run["sensitivity"].items())
        )
    parts.append(f"judgment {run['judgment_cpu_ms_per_page']} ms/page")
    if "second_visit" in run:
        parts.append(
            "second visit pushed "
            + ", ".join(
                f"{group} {c['right']} right / {c['wrong']} wrong of {c['on_topic']} on topic"
                for group, c in run["second_visit"].items()
            )
        )
    return " | ".join(parts)


def params_note(params: dict[str, float]) -> str:
    """The line that says which judgment parameters a report was made with ("" for none)."""
    if not params:
        return ""
    given = ", ".join(f"{k} = {v:g}" for k, v in params.items())
    return f"Judged with {given} (the other parameters at their defaults).\n\n"


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| web | topic | on-topic items / items | rule | precision | recall | F1 | hubs pushed "
        "| F1 of each run |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for web in report["webs"]:
        name = Path(web["web"]).name
        for run in web["runs"]:
            for rule in ("model", "kp", "anywhere", "after_feedback"):
                if rule not in run:
                    continue
                r = run[rule]
                label = {"after_feedback": f"model + {CLICKS} clicks"}.get(rule, rule)
                lines.append(
                    f"| {name} ({web['lang']}) | {run['topic']} "
                    f"| {run['on_topic_items']} / {run['items']} | {label} "
                    f"| {r['precision']:.3f} | {r['recall']:.3f} | **{r['f1']:.3f}** "
                    f"| {r['hubs_pushed']} "
                    f"| {', '.join(f'{f:.3f}' for f in run.get('repeats', {}).get(rule, []))} |"
                )
    lines += _sensitivity_table(report)
    seconds = [
        (Path(web["web"]).name, run["topic"], run["second_visit"])
        for web in report["webs"]
        for run in web["runs"]
        if "second_visit" in run
    ]
    if seconds:
        from lab.bench.second import SHARE
        from lab.bench.second import markdown as second_markdown

        lines += [
            "",
            f"A second visit of {report['second']} fetches from each crawl's state, after "
            f"{SHARE:.0%} of the web's articles were replaced by new ones:",
            "",
            second_markdown(seconds),
        ]
    cpu = [run["judgment_cpu_ms_per_page"] for web in report["webs"] for run in web["runs"]]
    if cpu:
        lines.append("")
        lines.append(f"Judgment CPU per page: {min(cpu)}–{max(cpu)} ms.")
    return "\n".join(lines)


def _sensitivity_table(report: dict[str, Any]) -> list[str]:
    """Pages pushed (precision / recall) at each sensitivity setting, same fetched pages."""
    rows = [
        (Path(web["web"]).name, web["lang"], run)
        for web in report["webs"]
        for run in web["runs"]
        if run.get("sensitivity")
    ]
    if not rows:
        return []
    settings = list(rows[0][2]["sensitivity"])
    lines = [
        "",
        "Each sensitivity setting, the same fetched pages judged again at its threshold: pages "
        "pushed (precision / recall).",
        "",
        "| web | topic | "
        + " | ".join(f"{s} ({rows[0][2]['sensitivity'][s]['threshold']})" for s in settings)
        + " |",
        "|---|---|" + "---|" * len(settings),
    ]
    for name, lang, run in rows:
        cells = [
            f"{r['pushed']} ({r['precision']:.2f} / {r['recall']:.2f})"
            for r in (run["sensitivity"][s] for s in settings)
        ]
        lines.append(f"| {name} ({lang}) | {run['topic']} | " + " | ".join(cells) + " |")
    return lines


def _plot(web: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rules = ("model", "kp", "anywhere", "after_feedback")
    runs = web["runs"]
    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    width = 0.8 / len(rules)
    for k, rule in enumerate(rules):
        xs = [i + k * width for i, run in enumerate(runs) if rule in run]
        ys = [run[rule]["f1"] for run in runs if rule in run]
        ax.bar(xs, ys, width, label=rule.replace("_", " "))
    ax.set_xticks([i + 0.3 for i in range(len(runs))], [run["topic"] for run in runs])
    ax.set_ylabel("F1 (on-topic items fetched)")
    ax.set_ylim(0, 1)
    ax.set_title(f"push decision, {Path(web['web']).name} ({web['lang']})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def judgment_params(given: list[str], known: Collection[str] | None = None) -> dict[str, float]:
    """``NAME=VALUE`` options (read as ``timelypush crawl --param`` reads them) as judgment
    parameters (or any of ``known`` names); a name the model does not know or a value that
    is not a number is refused, naming the names there are (the model would ignore them)."""
    from app.cli.crawl import parse_params
    from crawler.judgment import JUDGE_DEFAULTS

    names = JUDGE_DEFAULTS if known is None else known
    params: dict[str, float] = {}
    for item in given:
        ((name, value),) = parse_params([item]).items()
        if name not in names:
            known_names = ", ".join(sorted(names))
            raise typer.BadParameter(
                f"{item!r}: expected NAME=VALUE with NAME one of {known_names}",
                param_hint="--param",
            )
        if not isinstance(value, int | float):
            raise typer.BadParameter(f"{item!r}: {value!r} is not a number", param_hint="--param")
        params[name] = float(value)
    return params


def crawl_params(given: list[str]) -> dict[str, float]:
    """``NAME=VALUE`` options for a crawl: judgment parameters and the default strategy's
    (``crawler.steering.Steering.defaults``), refused as ``judgment_params`` refuses."""
    from crawler.judgment import JUDGE_DEFAULTS
    from crawler.steering import Steering

    return judgment_params(given, {*JUDGE_DEFAULTS, *Steering.defaults})


CRAWL_PARAM_HELP = (
    "A judgment parameter (crawler.judgment.JUDGE_DEFAULTS) or a parameter of the default "
    "strategy (crawler.steering.Steering.defaults; repeatable), to compare a setting with the "
    "default."
)

PARAM_HELP = (
    "A judgment parameter (crawler.judgment.JUDGE_DEFAULTS; repeatable), to compare a setting "
    "with the default."
)


def register(bench_cli: typer.Typer) -> None:
    """Add `bench match` to the bench group."""

    @bench_cli.command("match")
    def match(
        web: list[Path] = typer.Option(..., "--web", help="A web built by `timelypush lab build`."),
        out: Path = typer.Option(Path("var/bench/match"), "--out", help="Where results go."),
        pages: int = typer.Option(1000, "--pages", min=50, help="Fetches per crawl."),
        seed: str = typer.Option("home", "--seed", help="Seed from the manifest: home|sports."),
        repeats: int = typer.Option(
            1,
            "--repeats",
            min=1,
            help="Crawls per web and topic (the order of concurrent fetches varies); the run "
            "with the median model F1 is reported, with every run's F1.",
        ),
        keep: Path | None = typer.Option(
            None,
            "--keep",
            help="Also keep each crawl's fetched pages in this folder, for `bench replay`.",
        ),
        param: list[str] = typer.Option(
            [], "--param", metavar="NAME=VALUE", help=PARAM_HELP + " The crawls run with it too."
        ),
        second: int = typer.Option(
            0,
            "--second",
            min=0,
            help="Also: after each crawl, a next visit of this many fetches from its state, "
            "once 5 % of the web's articles were replaced by new ones; what it pushes (0: no).",
        ),
    ) -> None:
        """Precision, recall and F1 of what is pushed, on each lab web and topic."""
        params = judgment_params(param)
        logging.basicConfig(level=logging.WARNING)
        out.mkdir(parents=True, exist_ok=True)
        if keep is not None:
            keep.mkdir(parents=True, exist_ok=True)
        asyncio.run(_bench(web, out, pages, seed, repeats, keep, params, second))
        typer.echo(f"wrote {out / 'match.json'}, {out / 'match.md'} and the plots")
