"""The push decision: a per-concern topic model that reads what a person reads.

``Judge(profile).judge(page)`` returns a ``Judgment``: the page kind, a probability in [0, 1]
that the page is about the concern's topic, and whether it should be pushed (an *item* whose
probability reaches the concern's threshold). It learns from the crawl itself, with no
labelled data from the user:

1. **Literal evidence** — the user's keywords and synonyms in the title, meta keywords,
   description, the main text (all of it, counted), the anchor text pointing at the page and
   the section its URL names (``url_words``: ``/news/sport/`` says what ``| Sport |`` does)
   and the section the page says it is filed under (``Page.sections``: its breadcrumb, 首页 >
   体育 > 正文, or ``article:section``). A keyword in the headline is strong evidence; one
   mention in a long text is not ("in passing"). Exclude words veto the page.
2. **Pseudo-labels** — items with strong literal evidence are the first positives; every other
   item is *unlabelled* (it may still be on-topic: a page about 中超 never says 足球). Where
   fewer than ``warm_positives`` items print the words strongly, the items that print them at
   least twice, or once in a short text (``p_body_some``), are positives too
   (``weak_positives``): a site that spreads a story over short pages (a course page and its
   lectures) or seldom names the topic would otherwise get no model and push nothing, or one
   learned from a handful of pages, half of them off the topic.
3. **A text classifier per concern** — logistic regression over the words of the page (title
   weighted ×3, meta / description ×2, body ×1, sublinear counts, L2-normalised), with the
   user's own terms masked so that it must learn the topic's *other* words, and a site's own
   name in its titles left out (``crawler.sitenames``: where a page was found counts through
   its area, item 4, not as a word). It is trained by
   positive-unlabelled learning (Elkan & Noto 2008): ``g`` separates labelled positives (and
   👍 verdicts, weight ``feedback_weight``) from the unlabelled (and 👎, each on top of them as
   ``feedback_weight`` of them, ``downs_apart``), classes balanced; two
   stratified folds give each seen page a held-out score, Platt scaling turns it into
   P(labelled | page), and ``c`` = its mean over the labelled estimates P(labelled |
   relevant), so ``p_model = min(1, P(labelled) / c)`` — above the default threshold stretched
   onto [threshold, 1] so that a stricter sensitivity can tell typical pages apart
   (``_relevance``). The previous visit's model judges a
   revisit's first pages, until the visit has enough pages of its own to refit.
4. **Neighbours** — the unlabelled pages weigh as negatives by their closeness to the
   positives' part of the site (title section, else the one its breadcrumb or kicker names,
   else the URL's, and the links: a walk over them from the
   positives, ``area_walk``; 0 takes co-citation instead, ``crawler.siteareas``), so the
   model learns "football vs other sport", not "sport vs the rest"; the log of that closeness is
   added to the score before calibration. A user's verdict on a fetched page (the page at
   the verdict's address; a verdict without one, every page of its title) overrides its
   pseudo-label; ``c`` is taken over the literal positives only.
5. **Self-training** — the literal positives are few and narrow (the pages that print the
   word). Once the visit has ``warm_items`` items, and again at its end, the unlabelled items the
   fit judges relevant (probability ≥ ``expand_at``) join the positives, weighted by that
   probability, and the model is fitted again: ``expand_visit`` rounds during the visit (the
   crawl steers by those fits), ``expand`` at its end, then ``expand_long`` in which only
   pages of a few sentences or more come and go, then ``expand_short`` in which only pages
   with few words (headlines) still come and go, at probability ≥ ``expand_at_late`` — a
   long story shares enough words with the topic to be reached in the first rounds, a
   headline is reached a word at a time — only while the literal positives are under
   ``expand_share`` of the items: on a coarse topic they already cover it, and what
   self-training adds is mostly the off-topic pages next to it (during the visit it also
   steered the crawl astray). At the end of a visit a round adds at most ``expand_step`` ×
   the literal positives to what the last one took, the pages the last fit ranks highest
   first: the first fit learned from a handful of pages, and a round that took everything it
   judged relevant let its mistakes teach every later fit (on sites whose URLs and titles
   name no section, a coarse concern seeded in its section took every item, off-topic ones
   included). A page with the user's verdict keeps it and is never added; nor is a page that
   a site whose breadcrumbs file the topic under a section the user's words name files
   under another section (``_filed_elsewhere``: the model alone does not push it either).
   Those pages are known to be off the topic, and a page is added only if its words score
   above ``filed_floor`` % of theirs (``_filed_floor``): where the words do not tell the
   topic's pages from the rest, what they would take elsewhere is no better. A round after
   which the fit holds the literal positives for much less typical of the positives than an
   earlier fit did (``c`` under ``drift`` × its best so far) took pages of another kind: it
   is undone, and the rounds stop at the best fit (``_fit_round``).
6. **Probability** — ``1 − (1 − p_literal)(1 − p_model)``: either kind of evidence can carry a
   page, neither has to. During a visit the model pushes only once it was fitted on
   ``warm_items`` items with ``warm_positives`` positives, and pushes at once only what the
   user's own words carry (literal probability ≥ ``push_now``: a keyword in the title); what
   the model alone carries waits for the end of the visit. ``c`` is at least ``c_min``: an
   estimate below it comes from a calibration on a handful of positives, and let one fit claim
   25 times the pages that print the keyword, most of them off-topic. A revisit
   judges with the last visit's model until it has ``warm_items`` × ``prior_hold`` pages of
   its own (a fit on its first 15 pages knows less than one on a whole visit).

Decisions made before the model knows enough are provisional: ``finish()`` refits on the whole
visit and re-judges every item that was not pushed, returning the ones that now are (a page is
pushed at most once: ``finish`` never returns a page already pushed). A refit at the end
whose held-out scores rank nothing leaves no model: the visit's pages are judged by what the
user's words carry, not by a fit on a few of them (``_learned_nothing``).

A page a visit judged and did not push is remembered as declined (in ``history``). A later visit
that fetches it again leaves it unpushed while the user has taught the concern nothing since
(verdicts, words, threshold: ``_teaching``) and the page prints the user's words no more than it
did: the visit that declined it judged it with the whole site before it, a short revisit with a
thin map of it (on the second visits of thirteen lab webs such late pushes were wrong 22 times
in 30; docs/benchmarks.md, "A concern's second visit").

The model's state (weights, bias, counts) is plain JSON-able data (``state()`` /
``Judge(profile, state=...)``); the application stores it per concern. It keeps the last
``history`` items the model was fitted on, each as its ``history_words`` strongest words, its
pseudo-label and its closeness to the topic's area: the next visit fits on them and its own
pages together, so a concern's model learns from all its recent visits, not from the latest
one alone (a visit is 200 pages by default and finds a few new ones; fitted on those alone,
the model drifted, and the visits that found little of the topic pushed most of what they
found). They are learned from, never judged again.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crawler import text as textmod
from crawler.categories import broader, names_a_subject
from crawler.pagekind import ITEM, title_parts
from crawler.profile import TopicProfile, _Index
from crawler.siteareas import Affinity, SiteAreas, site_of
from crawler.sitenames import SiteNames
from crawler.types import Page
from crawler.urls import canonicalize, directories

__all__ = [
    "JUDGE_DEFAULTS",
    "SENSITIVITY",
    "Example",
    "Judge",
    "Judgment",
    "PageTokens",
    "page_tokens",
]

JUDGE_DEFAULTS: dict[str, float] = {
    "threshold": 0.65,
    # a fit needs this many positives (and as many other pages): 3, not 4, fits a model on a
    # site of its own where few pages print the user's words; the benchmark crawls, which read
    # several sites, decide the same either way (docs/benchmarks.md, "A site of its own")
    "min_positives": 3,
    "min_items": 15,
    "warm_items": 150,
    "body_chars": 8000,
    "w_title": 3.0,
    "w_meta": 2.0,
    "w_body": 1.0,
    "w_anchor": 2.0,
    "l2": 0.0001,
    "epochs": 100,
    "feedback_weight": 5.0,
    "max_examples": 4000,
    "max_weights": 5000,
    "p_title": 0.9,
    "p_meta": 0.8,
    "p_body_strong": 0.8,
    "p_body_some": 0.55,
    "p_body_once": 0.25,
    "p_anchor": 0.6,
    "p_url": 0.8,
    "p_broader": 0.45,
    "body_strong_hits": 3,
    "area": 1.0,
    "area_floor": 0.05,
    "c_min": 0.1,
    "warm_positives": 10,
    "expand": 6,
    "expand_at": 0.5,
    "expand_weight": 1.0,
    "expand_growth": 100,
    "push_now": 0.9,
    "expand_visit": 6,
    "visit_share": 0.5,
    "prior_hold": 1.0,
    "expand_share": 0.3,
    "background": 1.0,
    "link_early": 1.0,
    "stretch": 0.65,
    "veto_margin": 0.05,
    "expand_short": 6,
    "expand_long": 6,
    "long_words": 32,
    "short_words": 64,
    "expand_at_late": 0.6,
    "history": 1000,
    "history_words": 128,
    "area_walk": 0.3,
    "text_select": 1.0,
    "site_names": 1.0,
    "text_long": 0.1,
    "text_long_items": 300,
    "area_site": 0.3,
    "knn": 40,
    "knn_min": 2,
    "knn_short": 80,
    "knn_short_min": 1,
    "weak_positives": 1.0,
    "expand_step": 1.0,
    "sections": 1.0,
    "downs_apart": 1.0,
    "filed_floor": 95,
    "filed_min": 20,
    "drift": 0.5,
}
"""Judgment parameters (any can be overridden per concern through ``params``)."""

SENSITIVITY: dict[str, float] = {"precise": 0.8, "balanced": 0.65, "broad": 0.4}
"""精确 ↔ 宽泛: the push threshold each sensitivity setting stands for."""

_MEMO_MAX = 200_000
"""Words whose feature weight a judge remembers (then it starts again)."""

STATE_VERSION = 3
"""2: adds ``sections`` (a title's section, or ``url:`` and a URL's where a site's titles name
none → closeness to the topic); 3: adds ``history`` (the items the model was fitted on, in
brief); 1 and 2 still load. Since 2026-12-01 a state also holds ``sites`` (each site's
closest item: ``Judge._site_tops``); one saved before loads without it. Since 2026-12-06 a
history item may carry ``c`` (a positive only by the section its breadcrumb names); one saved
before has none."""


@functools.lru_cache(maxsize=16384)
def stem(token: str) -> str:
    """A light English plural / verb-s stemmer (``sports`` → ``sport``, ``matches`` → ``match``,
    ``injuries`` → ``injury``); other tokens, Chinese included, are returned as they are.
    Remembered: a page's words are mostly words seen before."""
    if len(token) < 4 or not token.isascii() or not token.isalpha():
        return token
    if token.endswith("ies") and len(token) > 4:
        return token[:-3] + "y"
    if token.endswith(("sses", "ches", "shes", "xes", "zes")):
        return token[:-2]
    if token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    return token


def _stem_all(tokens: Iterable[str]) -> list[str]:
    """Each token stemmed; a text's ``Tokens`` keep where the text broke."""
    if isinstance(tokens, textmod.Tokens):
        return tokens.map(stem)
    return list(map(stem, tokens))


def _stem_phrase(term: str) -> str:
    norm = textmod.normalize(term)
    return " ".join(stem(w) for w in norm.split()) if norm.isascii() else norm


def _broader_index(terms: Sequence[str]) -> _Index | None:
    """The words naming the subjects ``terms`` are filed under (``crawler.categories``), the
    terms themselves left out, as they are matched; None: none."""
    own = {_stem_phrase(t) for t in terms}
    subjects = {_stem_phrase(t) for t in broader(terms)} - own
    return _Index(dict.fromkeys(sorted(subjects), 1.0)) if subjects else None


def _page_key(url: str) -> str:
    return "url " + (canonicalize(url) or url)


def _title_key(title: str) -> str:
    return "title " + textmod.normalize(title)


def _verdict_key(example: Example) -> str:
    """What a verdict is on: the page at the example's address, else every page of its
    title."""
    return _page_key(example.url) if example.url else _title_key(example.title)


def headline(title: str) -> tuple[str, str]:
    """(headline, the rest): ``title_parts`` with the other parts joined by spaces."""
    head, rest = title_parts(title)
    return head, " ".join(rest)


def _section(title: str) -> str:
    """The section part of a title (``体育 新浪网``, ``sport the herald``), "" when none."""
    return " ".join(textmod.normalize(headline(title)[1]).split())


def _filed_section(page: Page) -> str:
    """The section a page says it is filed under (its breadcrumb's, ``Page.sections``) as a
    title's section stands for it, where its title names none: ``filed:`` and its names."""
    names = getattr(page, "sections", ())  # a page kept before pages had sections has none
    return "filed: " + " ".join(textmod.normalize(" ".join(names)).split()) if names else ""


def _names_in_section(seen: _Seen) -> bool:
    """The user's words are among the sections the page says it is filed under."""
    return any("section" in where for where in seen.hits.values())


@dataclass(slots=True)
class PageTokens:
    """A page's words, segmented once and shared by every reader of the page."""

    title: list[str]
    meta: list[str]
    description: list[str]
    body: list[str]
    anchor: list[str] = field(default_factory=list)
    headline: list[str] | None = None
    """The title without its section / site suffix (None: the whole title)."""
    suffix: list[str] = field(default_factory=list)
    words: tuple[str, ...] = ()
    """The concern's own words the page was cut with (``crawler.text.Words.kept``)."""
    url: tuple[str, ...] = ()
    """The words of the URL's section: its host's labels before the site's name and its
    directories (``url_words``)."""
    section: list[str] = field(default_factory=list)
    """The words of the sections the page says it is filed under (``Page.sections``: its
    breadcrumb, ``article:section``)."""


def _segment(
    title: str,
    text: str,
    *,
    meta: str = "",
    description: str = "",
    anchor: str = "",
    words: textmod.Words | None = None,
) -> PageTokens:
    """Segment a page's parts (with the concern's own ``words``, see ``crawler.text.Words``);
    the title also as its headline and the suffix after it."""
    head, rest = headline(title)
    title_tokens = textmod.tokenize(title, words)
    return PageTokens(
        title_tokens,
        textmod.tokenize(meta, words),
        textmod.tokenize(description, words),
        textmod.tokenize(text, words),
        _anchor_tokens(anchor, title_tokens, words),
        textmod.tokenize(head, words) if rest else None,
        textmod.tokenize(rest, words),
        words.kept if words else (),
    )


def _anchor_tokens(anchor: str, title: list[str], words: textmod.Words | None) -> list[str]:
    """The words of the anchor text that the title does not already say."""
    return textmod.tokenize(anchor, words).without(set(title))


def page_tokens(
    page: Page, *, body_chars: int = 8000, anchor: str = "", words: textmod.Words | None = None
) -> PageTokens:
    """Segment a page's title, meta keywords, description and main text (cached on the page,
    for the concern's own ``words``: concerns whose words cut a text alike share it)."""
    cached = page.tokens
    if isinstance(cached, PageTokens) and cached.words == (words.kept if words else ()):
        return cached
    tokens = _segment(
        page.title,
        page.text[:body_chars],
        meta=page.meta_keywords,
        description=page.description,
        anchor=anchor,
        words=words,
    )
    tokens.url = url_words(page.final_url or page.url)
    # a page kept (``bench match --keep``) before pages had sections has none
    tokens.section = textmod.tokenize(" | ".join(getattr(page, "sections", ())), words)
    page.tokens = tokens
    return tokens


@functools.lru_cache(maxsize=65536)
def url_words(url: str) -> tuple[str, ...]:
    """The words a URL names its page's section with: the host's labels before the site's
    registrable name (``sport`` of ``sport.example.com``) and the directories
    (``crawler.urls.directories``: ``news``, ``sport``, ``football`` of
    ``/news/sport/football/2019/story-1.html``; not the page's own name, dates or ids)."""
    host, dirs = directories(url)
    site = site_of(url)
    labels = host.removesuffix(site).split(".") if host.endswith(site) else []
    return tuple(textmod.tokenize(" ".join([*labels, *dirs]).replace("-", " ").replace("_", " ")))


@dataclass(slots=True)
class Example:
    """A labelled page for the model: its words and a label (user feedback)."""

    title: str
    text: str
    label: bool
    """True: relevant (👍); False: not relevant (👎)."""
    url: str = ""
    """The page's address: the verdict is on that page. Without one it is on every page of
    the title (a title is not a page: "Lecture 1" of one university's football course and of
    another's rugby course, or a site's "Home")."""


@dataclass
class Judgment:
    """The push decision for one page and one concern."""

    kind: str
    probability: float
    threshold: float
    relevant: bool
    """Push it: an item whose probability reaches the threshold."""
    provisional: bool
    """Judged before the model had learned enough; ``finish()`` judges it again."""
    terms: list[str] = field(default_factory=list)
    """The user's terms found on the page, then the learned terms that fired."""
    explanation: dict[str, Any] = field(default_factory=dict)
    title: str = ""


@dataclass(slots=True)
class _Seen:
    url: str
    title: str
    features: dict[str, float]
    literal: float
    positive: bool
    kind: str
    pushed: bool
    hits: dict[str, Counter[str]]
    excluded: list[str]
    kind_evidence: list[str]
    section: str = ""
    area: float | None = None
    """Closeness to the topic's area as the visit that fetched the page saw it (a page of an
    earlier visit: this visit's map of the site does not hold it)."""
    earlier: bool = False
    """Fetched in an earlier visit (``history``): learned from, not judged again."""
    declined: bool = False
    """An earlier visit judged the page and did not push it (a page of an earlier visit); the
    user has taught the model nothing since, and the page prints the user's words no more
    than it did then (a page of this visit, fetched again): not pushed now either."""
    by_url: bool = False
    """A positive only by the section its URL names (``Judge._literal``)."""
    filed: bool = False
    """A positive only by the section the page says it is filed under (its breadcrumb)."""
    sectioned: bool = False
    """The page says which section it is filed under (``Page.sections``)."""


class _Model:
    """Sparse logistic regression over term features, trained by full-batch Adam with L2."""

    def __init__(self, weights: Mapping[str, float] | None = None, bias: float = 0.0) -> None:
        self.weights: dict[str, float] = dict(weights or {})
        self.bias = bias

    def logit(self, features: Mapping[str, float]) -> float:
        w = self.weights
        return self.bias + sum(v * w.get(t, 0.0) for t, v in features.items())

    def prob(self, features: Mapping[str, float]) -> float:
        return _sigmoid(self.logit(features))

    @classmethod
    def fit(
        cls,
        rows: Sequence[Mapping[str, float]],
        labels: Sequence[float],
        weights: Sequence[float],
        *,
        l2: float,
        epochs: int,
    ) -> _Model:
        vocab: dict[str, int] = {}
        r_idx: list[int] = []
        c_idx: list[int] = []
        vals: list[float] = []
        for i, row in enumerate(rows):
            for term, v in row.items():
                j = vocab.setdefault(term, len(vocab))
                r_idx.append(i)
                c_idx.append(j)
                vals.append(v)
        n, d = len(rows), len(vocab)
        rr = np.asarray(r_idx, dtype=np.int64)
        cc = np.asarray(c_idx, dtype=np.int64)
        xv = np.asarray(vals, dtype=np.float64)
        y = np.asarray(labels, dtype=np.float64)
        sw = np.asarray(weights, dtype=np.float64)
        sw = sw / max(sw.sum(), 1e-9)
        # the row sums (z) walk the entries interleaved: every row's first entry, then every
        # row's second, … Each row's entries are still added in their order (the same sums,
        # bit for bit), but consecutive additions go to different rows instead of waiting on
        # each other: three times faster on a visit's 60,000 entries
        starts = np.concatenate(([0], np.cumsum(np.bincount(rr, minlength=n))[:-1]))
        lane = np.argsort(np.arange(len(rr)) - starts[rr], kind="stable")
        rr_z, cc_z, xv_z = rr[lane], cc[lane], xv[lane]
        w, b = np.zeros(d), 0.0
        m_w, v_w = np.zeros(d), np.zeros(d)
        m_b = v_b = 0.0
        lr, beta1, beta2, eps = 0.1, 0.9, 0.999, 1e-8
        for step in range(1, epochs + 1):
            z = np.bincount(rr_z, weights=xv_z * w[cc_z], minlength=n) + b
            p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
            err = (p - y) * sw
            g_w = np.bincount(cc, weights=xv * err[rr], minlength=d) + l2 * w
            g_b = float(err.sum())
            m_w = beta1 * m_w + (1 - beta1) * g_w
            v_w = beta2 * v_w + (1 - beta2) * g_w * g_w
            m_b = beta1 * m_b + (1 - beta1) * g_b
            v_b = beta2 * v_b + (1 - beta2) * g_b * g_b
            corr1, corr2 = 1 - beta1**step, 1 - beta2**step
            w -= lr * (m_w / corr1) / (np.sqrt(v_w / corr2) + eps)
            b -= lr * (m_b / corr1) / (math.sqrt(v_b / corr2) + eps)
        terms = list(vocab)
        out = {terms[j]: float(w[j]) for j in np.flatnonzero(np.abs(w) > 1e-4)}
        return cls(out, float(b))

    @classmethod
    def mean(cls, models: Sequence[_Model]) -> _Model:
        weights: dict[str, float] = {}
        for model in models:
            for term, w in model.weights.items():
                weights[term] = weights.get(term, 0.0) + w / len(models)
        return cls(weights, sum(m.bias for m in models) / len(models))

    def scaled(self, factor: float) -> _Model:
        """The same model with its logit times ``factor``."""
        return _Model({t: w * factor for t, w in self.weights.items()}, self.bias * factor)

    def pruned(self, keep: int) -> _Model:
        if len(self.weights) <= keep:
            return self
        top = sorted(self.weights.items(), key=lambda kv: -abs(kv[1]))[:keep]
        return _Model(dict(top), self.bias)


def _platt(scores: Sequence[float], labels: Sequence[float]) -> tuple[float, float]:
    """(a, m) with P(label | score) = sigmoid(a · (score − m)): Platt's method, with his
    smoothed targets so that separable scores do not send ``a`` to infinity."""
    z = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    n_pos, n_neg = float(y.sum()), float(len(y) - y.sum())
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(a: float, b: float) -> float:
        m = a * z + b
        return float(np.sum(np.logaddexp(0.0, m) - t * m))

    a, b = 1.0, 0.0
    current = loss(a, b)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(a * z + b, -30, 30)))
        r = p * (1 - p) + 1e-12
        g = np.array([np.sum((p - t) * z), np.sum(p - t)])
        h = np.array([[np.sum(r * z * z), np.sum(r * z)], [np.sum(r * z), np.sum(r)]])
        step = np.linalg.solve(h + np.eye(2) * 1e-6, g)
        size = 1.0
        while size > 1e-6:  # backtracking: Newton's full step can overshoot
            na, nb = a - size * step[0], b - size * step[1]
            trial = loss(na, nb)
            if trial <= current:
                break
            size /= 2
        else:
            break
        a, b, previous, current = na, nb, current, trial
        if previous - current < 1e-10:
            break
    a = max(float(a), _FLAT)
    return a, -float(b) / a


SHOWN_WORDS = 50
"""How many of the model's strongest words an explanation may name though the dictionary
lacks them (``Judge._readable``)."""

_FLAT = 1e-3
"""The least Platt slope: a fit whose held-out scores rank the positives no higher than the
rest gets it (and is not used)."""


_TEXT_WEIGHTS = (0.25, 0.5, 1.0)
"""The weights of the text's score against the area's a visit's last fit chooses from."""


def roc_auc(pos: Sequence[float], neg: Sequence[float]) -> float:
    """The area under the ROC curve: the chance that a score of ``pos`` is above one of
    ``neg``, ties counting a half (both non-empty)."""
    off = np.sort(np.asarray(neg, dtype=float))
    on = np.asarray(pos, dtype=float)
    below = np.searchsorted(off, on, side="left")
    tied = np.searchsorted(off, on, side="right") - below
    return float((below + 0.5 * tied).sum() / (len(on) * len(off)))


def _unit(vector: dict[str, float]) -> dict[str, float]:
    """``vector`` scaled to unit length (empty when it is zero)."""
    norm = math.sqrt(sum(v * v for v in vector.values()))
    return {t: v / norm for t, v in vector.items()} if norm else {}


class _Cosines:
    """Unit vectors indexed by word, so that a page's cosines with all of them take one pass
    over its own words (hundreds of vectors cost little more than a few). Built at the first
    page asked about, each word's arrays at the first page that has the word."""

    def __init__(self, vectors: Sequence[Mapping[str, float]]) -> None:
        self._vectors = vectors
        self._lists: dict[str, tuple[list[int], list[float]]] | None = None
        self._arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def of(self, features: Mapping[str, float]) -> np.ndarray:
        """The cosine of ``features`` (a unit vector) with each vector, in their order."""
        if self._lists is None:
            self._lists = {}
            for j, vector in enumerate(self._vectors):
                for t, v in vector.items():
                    idx, vals = self._lists.setdefault(t, ([], []))
                    idx.append(j)
                    vals.append(v)
        sims = np.zeros(len(self._vectors))
        for t, v in features.items():
            pair = self._arrays.get(t)
            if pair is None:
                if t not in self._lists:
                    continue
                idx, vals = self._lists[t]
                pair = self._arrays[t] = (np.array(idx, dtype=np.intp), np.array(vals))
            sims[pair[0]] += v * pair[1]
        return sims


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-min(z, 30.0)))
    e = math.exp(max(z, -30.0))
    return e / (1.0 + e)


class Judge:
    """One concern's push decision (see the module doc)."""

    _filing: frozenset[str] = frozenset()
    """Sites that file the topic's pages under a section the user's words name
    (``_filing_sites``, as of the last fit; set on the instance by each fit)."""
    _top_words: tuple[_Model | None, frozenset[str]] = (None, frozenset())
    """The model whose strongest words ``_readable`` last read, and those words."""
    _held_c: float = 1.0
    """The last fit's ``c`` before its floor (``c_min``): ``_fit_round`` compares them."""

    def __init__(
        self,
        profile: TopicProfile,
        *,
        params: Mapping[str, Any] | None = None,
        state: Mapping[str, Any] | None = None,
        feedback: Sequence[Example] = (),
        blocked: Iterable[str] = (),
    ) -> None:
        self.profile = profile
        self.params: dict[str, float] = {**JUDGE_DEFAULTS}
        for key, value in (params or {}).items():
            if key in JUDGE_DEFAULTS and isinstance(value, int | float):
                self.params[key] = float(value)
        self.blocked = {textmod.normalize(t) for t in blocked}
        self._user = [_stem_phrase(t) for t in profile.user_terms]
        self._stems = {_stem_phrase(t): t for t in reversed(profile.user_terms)}
        # the user's terms as matched, and the words naming the subjects they are filed under
        # (sport, 体育 for football): a link or URL that says one leads while the model is cold
        self._user_index, self._broader = (
            _Index(dict.fromkeys(self._stems, 1.0)),
            _broader_index(profile.user_terms),
        )
        self._exclude = [textmod.normalize(t) for t in profile.exclude]
        self._term_weights: dict[str, float] = {}
        self.prior: _Model | None = None
        self.c = 1.0
        self.history_items = 0
        self.areas = SiteAreas()
        self.affinity: Affinity | None = None
        history: list[_Seen] = []
        if state and state.get("version") in (1, 2, STATE_VERSION):
            self.history_items = int(state.get("items", 0))
            weights = dict(state.get("weights") or {})
            # a visit that never had enough pages of each class to fit saves no weights: that
            # is no model to start from (as one, it judged every page of the next visit alike)
            if weights:
                self.prior = _Model(
                    {str(k): float(v) for k, v in weights.items()}, float(state.get("bias", 0.0))
                )
                self.c = float(state.get("c", 1.0))
                sections = state.get("sections")
                if isinstance(sections, Mapping) and sections:
                    # each site's closest item as the last visit found it (none in a state
                    # saved before: closeness then as it was measured, against every site)
                    self.affinity = Affinity(
                        self.areas,
                        {str(k): float(v) for k, v in sections.items()},
                        None,
                        site_tops={
                            str(k): float(v) for k, v in dict(state.get("sites") or {}).items()
                        },
                    )
            history = self._history(state.get("history"))
        self.model: _Model | None = self.prior
        self.feedback = [self._example(ex) for ex in feedback]
        self._feedback_sections = [_section(ex.title) for ex in feedback]
        self._verdicts = [(_verdict_key(ex), ex.label) for ex in feedback if ex.url or ex.title]
        self.seen: list[_Seen] = history
        self._names = SiteNames()
        """The sites' names in their titles: not topic words (``crawler.sitenames``)."""
        self._name_words: dict[str, frozenset[str]] = {}
        for s in history:
            self._names.observe(s.url, title_parts(s.title)[1])
        self._by_url: dict[str, _Seen] = {s.url: s for s in history}
        self._earlier = len(history)
        self._observed = 0
        """Items this visit observed (a page of an earlier visit fetched again counts)."""
        # the pages of earlier visits are not a reason to refit before this visit adds its own
        self._fitted_at = len(history)
        self._flat_at = 0
        """When a fit last learned nothing (``_FLAT``): the next try waits as after a fit."""
        self._final_fit = False
        self._last_round = False
        """The fit under way is its refit's last (self-training's last round, or the only)."""
        self._fitted_positives = 0
        self._narrow = False
        self._final = False
        self.held: dict[str, float] = {}
        self.expanded: set[str] = set()
        """The pages self-training took as positives in the last fit."""
        self._weak = False
        """The last refit took the weak literal pages as positives (``_literal_positive``)."""
        self._link_cache: dict[tuple[str, int], tuple[float, float]] = {}
        self._learned: dict[str, float] = {}
        self._learned_at = -1
        # the calibration, and what the model's words were weighed by in its fit
        # (``_text_weight``: a word's part in a page's score is read against it, in
        # ``_model_probability``'s words that fired)
        self.mid, self.scale, self.text_weight = (
            float((state or {}).get(key, default))
            for key, default in (("mid", 0.0), ("scale", 1.0), ("text", 1.0))
        )
        self._taught = self._teaching(feedback)
        self._taught_before = state is not None and state.get("taught") == self._taught
        """The user has taught this concern nothing since the state was saved."""

    @property
    def taught_since(self) -> bool:
        """Whether the judgment has been told something its saved state has not judged with:
        it has no state (a first visit), or the user gave verdicts, changed the words or the
        sensitivity since the state was saved (``_teaching``)."""
        return not self._taught_before

    def _teaching(self, feedback: Sequence[Example]) -> str:
        """A fingerprint of what the user has told the concern's judgment: the verdicts, the
        words (keywords, synonyms, exclude words, learned words removed) and the threshold. A
        page an earlier visit declined is judged afresh once it changes."""
        told = {
            "verdicts": sorted((textmod.normalize(ex.title), ex.label) for ex in feedback),
            "terms": list(self.profile.user_terms),
            "exclude": self._exclude,
            "blocked": sorted(self.blocked),
            "threshold": self.threshold,
        }
        raw = json.dumps(told, ensure_ascii=False, sort_keys=True).encode("utf-8")
        return hashlib.sha256(raw).hexdigest()[:16]

    # -- features -------------------------------------------------------------------------
    def _masked(self, term: str) -> bool:
        if term in self.blocked or textmod.is_stopword(term) or len(term) < 2:
            return True
        return any(u and (u in term or term in u) for u in self._user)

    def _term_weight(self, term: str) -> float:
        if self._masked(term):
            return 0.0
        return textmod.background_weight(term) if self.params["background"] else 1.0

    def _features(self, tokens: PageTokens) -> dict[str, float]:
        p = self.params
        counts: dict[str, float] = {}
        for toks, w in (
            (tokens.title if tokens.headline is None else tokens.headline, p["w_title"]),
            (tokens.suffix, p["w_body"]),
            (tokens.meta, p["w_meta"]),
            (tokens.description, p["w_meta"]),
            (tokens.anchor, p["w_anchor"]),
        ):
            for t in set(_stem_all(toks)):
                counts[t] = counts.get(t, 0.0) + w
        for t, n in Counter(_stem_all(tokens.body)).items():
            counts[t] = counts.get(t, 0.0) + p["w_body"] * (1.0 + math.log(n))
        # each word's weight, remembered: 0 for a masked word; else, when ``background``, its
        # rarity in general use (a word common in any text — 中国, 进入, 第一 — says little about
        # the topic, however often the few positives print it), else 1
        memo = self._term_weights
        feats: dict[str, float] = {}
        for t, v in counts.items():
            weight = memo.get(t)
            if weight is None:
                weight = self._term_weight(t)
                if len(memo) >= _MEMO_MAX:
                    memo.clear()
                memo[t] = weight
            if weight:
                feats[t] = v * weight
        return _unit(feats)

    def _example(self, ex: Example) -> tuple[dict[str, float], bool]:
        """A verdict's words: what the page says, not where it was found. Its headline weighs
        as a fetched page's does (a title), and the site and section names in the title's
        suffix are left out: the pages a user rates are the ones pushed, most of them from the
        sites the crawl found most of the topic on, and learned from, those names became the
        topic (on a web of four portals, 18 of 20 verdicts from one portal made its name the
        model's heaviest word and self-training took that portal's house and car headlines:
        F1 0.70 before the clicks, 0.21 after). Where a verdict's page lives still counts,
        through its section's closeness to the topic (``_feedback_sections``)."""
        head = headline(ex.title)[0]
        return self._features(_segment(head, ex.text, words=self.profile.words)), ex.label

    # -- literal evidence -----------------------------------------------------------------
    def _literal(
        self, tokens: PageTokens
    ) -> tuple[float, bool, bool, bool, dict[str, Counter[str]]]:
        """(p_literal, strong, strong only by the URL's section, strong only by the section
        the page says it is filed under, hits by term and place)."""
        p = self.params
        hits: dict[str, Counter[str]] = {}
        for where, toks in (
            ("title", tokens.title),
            ("meta", textmod.joined((tokens.meta, tokens.description))),
            ("anchor", tokens.anchor),
            ("body", tokens.body),
            ("url", tokens.url if p["p_url"] else ()),
            ("section", tokens.section if p["p_url"] and p["sections"] else ()),
        ):
            for stemmed in self._user_index.match(_stem_all(toks)):
                hits.setdefault(self._stems[stemmed], Counter())[where] += 1
        total = Counter[str]()
        for where_counts in hits.values():
            total.update(where_counts)
        body = total["body"]
        long_body = len(tokens.body) > 150
        if total["title"]:
            lit, strong = p["p_title"], True
        elif total["meta"]:
            lit, strong = p["p_meta"], True
        elif body >= p["body_strong_hits"]:
            lit, strong = p["p_body_strong"], True
        elif body >= 2 or (body == 1 and not long_body):
            lit, strong = p["p_body_some"], False
        elif body == 1:
            lit, strong = p["p_body_once"], False
        else:
            lit, strong = 0.0, False
        filed = not strong and bool(total["section"])
        if filed:
            # the section the page says it is filed under (its breadcrumb: 首页 > 体育 > 正文,
            # ``article:section``) says what a title's ``| Sport |`` says, on a site whose
            # titles and URLs do not say it
            lit, strong = max(lit, p["p_url"]), True
        by_url = not strong and bool(total["url"])
        if by_url:
            # the section the URL names (``/sport/``, ``sport.example.com``) says what a
            # title's ``| Sport |`` says, on a site whose titles do not say it
            lit, strong = max(lit, p["p_url"]), True
        if total["anchor"]:
            lit = 1.0 - (1.0 - lit) * (1.0 - p["p_anchor"])
        return lit, strong, by_url, filed, hits

    # -- the decision ---------------------------------------------------------------------
    @property
    def threshold(self) -> float:
        return self.params["threshold"]

    @property
    def warm(self) -> bool:
        """The model has learned enough to judge pages without literal evidence."""
        return self.model is not None and (
            self.prior is not None
            or self._final
            or (
                self._fitted_at >= self.params["warm_items"]
                and self._fitted_positives >= self.params["warm_positives"]
            )
        )

    def judge(self, page: Page, *, anchor: str = "", observe: bool = True) -> Judgment:
        """Judge a fetched page (and, with ``observe``, learn from it)."""
        words = self.profile.words
        tokens = page_tokens(
            page, body_chars=int(self.params["body_chars"]), anchor=anchor, words=words
        )
        if anchor and not tokens.anchor:
            tokens.anchor = _anchor_tokens(anchor, tokens.title, words)
        head = tokens.title + tokens.meta + tokens.description
        excluded = self.profile.excluded_in(head) if self._exclude else []
        literal, strong, by_url, filed, hits = self._literal(tokens)
        seen = _Seen(
            page.final_url or page.url,
            page.title,
            self._features(tokens),
            literal,
            strong and not excluded,
            page.kind,
            False,
            hits,
            excluded,
            list(page.kind_evidence),
            _section(page.title) or _filed_section(page),
            by_url=by_url and not excluded,
            filed=filed and not excluded,
            sectioned=bool(tokens.section),
        )
        if observe:
            self.areas.observe(
                seen.url,
                (link.url for link in page.links),
                seen.section if page.kind == ITEM else None,
            )
            if page.kind == ITEM:
                self._names.observe(seen.url, title_parts(page.title)[1])
        self._without_site_name(seen)
        if observe and page.kind == ITEM and not page.not_modified:
            previous = self._by_url.get(seen.url)
            if previous is not None and not previous.earlier:
                seen.pushed, seen.declined = previous.pushed, previous.declined
                self.seen[self.seen.index(previous)] = seen
            else:
                if previous is not None:
                    # a page of an earlier visit fetched again is this visit's, judged again
                    # (a push is made once per concern all the same: the application keeps one
                    # match per page), and takes its place among this visit's pages: the
                    # held-out folds alternate in that order, and a visit of the same pages
                    # then splits them as the visit before did
                    self.seen.remove(previous)
                    seen.declined = (
                        previous.declined
                        and self._taught_before
                        and seen.literal <= previous.literal + 1e-3
                    )
                self.seen.append(seen)
                self._forget_features()
            self._by_url[seen.url] = seen
            self._observed += 1
            self._maybe_refit()
        judgment = self._decide(seen)
        if judgment.relevant and observe:
            seen.pushed = True
        return judgment

    def _without_site_name(self, seen: _Seen) -> None:
        """Drop the words of the page's site's name (as far as it is known now) from its
        features: where the page was found counts through its closeness to the topic's area,
        not as a topic word (``crawler.sitenames``). Pages judged before the name was known
        lose them at the next refit."""
        if not self.params["site_names"] or not seen.features:
            return
        names = self._names.names(seen.url)
        if not names:
            return
        drop: set[str] = set()
        for name in names:
            words = self._name_words.get(name)
            if words is None:
                words = self._name_words[name] = frozenset(
                    _stem_all(textmod.tokenize(name, self.profile.words))
                )
            drop |= words
        if not drop.isdisjoint(seen.features):
            seen.features = _unit({t: v for t, v in seen.features.items() if t not in drop})

    def _forget_features(self) -> None:
        """Memory: the page that just left the refit window (the last ``max_examples`` items)
        is never read again if it was pushed — refits take only the window, ``finish`` re-judges
        only what was not pushed — so its features go; a pending page keeps them."""
        gone = len(self.seen) - int(self.params["max_examples"]) - 1
        if gone >= 0 and self.seen[gone].pushed:
            self.seen[gone].features = {}

    def _probability(
        self, seen: _Seen, *, explain: bool = True
    ) -> tuple[float, float, float, list[tuple[str, float]]]:
        """(probability, the model's part, the area closeness, the learned words that fired):
        either kind of evidence, the user's words or the model, can carry a page; an exclude
        word sets it to 0."""
        area = self._area(seen)
        p_model, fired = (
            self._model_probability(seen, area, explain=explain)
            if self.warm and not self._filed_elsewhere(seen)
            else (0.0, [])
        )
        prob = 0.0 if seen.excluded else 1.0 - (1.0 - seen.literal) * (1.0 - p_model)
        return prob, p_model, area, fired

    def _decide(self, seen: _Seen) -> Judgment:
        prob, p_model, area, fired = self._probability(seen)
        # a page an earlier visit declined, fetched again unchanged with nothing taught since,
        # stays declined: that visit judged it with the whole site before it, a short revisit
        # with a thinner map of it (declined pages pushed later were wrong three times in four)
        relevant = seen.kind == ITEM and prob >= self.threshold and not seen.declined
        # during a visit only what the user's own words carry (a keyword in the title) is
        # pushed at once; what the model alone carries waits for the end of the visit, when
        # it has read the whole site and this visit's feedback (a fit on the visit's first
        # pages, or the last visit's model, pushed as many wrong pages as right ones)
        held_back = relevant and not self._final and seen.literal < self.params["push_now"]
        relevant = relevant and not held_back
        terms = list(seen.hits) + [t for t, _ in fired if t not in seen.hits]
        explanation = {
            "method": "model",
            "score": round(prob, 4),
            "probability": round(prob, 4),
            "threshold": self.threshold,
            "kind": seen.kind,
            "kind_evidence": seen.kind_evidence[:4],
            "parts": {
                "literal": round(seen.literal, 4),
                "model": round(p_model, 4),
                "area": round(area, 4),
            },
            "hits": [
                {"term": t, "weight": 1.0, "learned": False, "where": dict(w)}
                for t, w in seen.hits.items()
            ],
            "learned": [t for t, _ in fired],
            "learned_weights": {t: round(v / (self.text_weight or 1.0), 3) for t, v in fired},
            "model_warm": self.warm,
            "feedback": len(self.feedback),
        }
        if self.warm and self._area_says():
            # where on the site the page was found is part of the model's score: said, so a
            # page the text alone does not carry is not pushed for no reason shown
            explanation["site_area"] = round(area, 2)
        if seen.excluded:
            explanation["excluded"] = seen.excluded
        if seen.declined:
            explanation["declined_before"] = True
        return Judgment(
            seen.kind,
            round(prob, 4),
            self.threshold,
            relevant,
            not self.warm or held_back,
            terms,
            explanation,
            seen.title,
        )

    def _area_says(self) -> bool:
        """The closeness to the topic's area tells pages apart on this site (the site names
        sections, or its pages link to each other): else it is 1 for every page."""
        a = self.affinity
        return (
            bool(self.params["area"])
            and a is not None
            and (a.sections is not None or a.cited is not None)
        )

    def _area_logit(self, area: float) -> float:
        return math.log(max(area, self.params["area_floor"]))

    def _area(self, seen: _Seen) -> float:
        """How close the page is to the part of the site where the topic's pages are (for a
        page of an earlier visit, as that visit saw it)."""
        if not self.params["area"]:
            return 1.0
        if seen.area is not None:
            return seen.area
        affinity = self.affinity
        if affinity is None:
            return 1.0
        closeness = affinity(seen.url, seen.section)
        least = self.params["area_site"]
        if not least:
            return closeness
        top = self._site_tops(affinity).get(site_of(seen.url), 0.0)
        return closeness if top <= 0.0 else min(1.0, closeness / max(top, least))

    def _site_tops(self, affinity: Affinity) -> dict[str, float]:
        """Per site, the closeness of its closest item this visit judged (once per map).

        A page's closeness is read against its own site's closest part (``area_site``: that
        part counts as at least this close). The positives that measure it are the pages that
        print the user's words, and a site that prints them less looks further from the topic
        everywhere: on a web of universities, 3 of one sport department's 167 pages said
        "football" and 13 of another's 172, so the first department's football courses stood
        at 0.14 and were pushed only where the text alone was certain, the second's at 0.50.
        Within a site the order stays: its other sections are as far from its closest one as
        before. A site none of whose items is near the topic stays where it is; one whose
        closest part is barely near it (a stray positive) is raised at most to
        ``1 / area_site`` times its closeness. Found over the items when a fit maps the site;
        a map a saved state gives back keeps the tops its visit found (the state's ``sites``),
        as a revisit's first pages are too few to find them."""
        if affinity.site_tops is None:
            tops: dict[str, float] = {}
            for seen in self.seen:
                if seen.area is None:
                    site = site_of(seen.url)
                    tops[site] = max(tops.get(site, 0.0), affinity(seen.url, seen.section))
            affinity.site_tops = tops
        return affinity.site_tops

    def _model_probability(
        self, seen: _Seen, area: float = 1.0, *, explain: bool = True
    ) -> tuple[float, list[tuple[str, float]]]:
        """P(relevant) from the model: g / c, with g held out for pages it was trained on;
        with ``explain``, also the learned words that fired most."""
        features = seen.features
        if self.model is None or not features:
            return 0.0, []
        z = self.held.get(seen.url)
        fired: list[tuple[str, float]] = []
        if z is None or explain:
            w = self.model.weights
            contrib = [(t, v * w.get(t, 0.0)) for t, v in features.items()]
            if explain:
                # a word fires by its part in the text's score: the model of a long visit's
                # last fit weighs the text at a tenth (``text_long``), and read against 0.05
                # itself, a third of its pushes named no word at all
                floor = 0.05 * self.text_weight
                strong = (c for c in contrib if c[1] > floor and self._readable(c[0]))
                fired = sorted(strong, key=lambda c: -c[1])[:8]
            if z is None:
                z = self.model.bias + sum(v for _, v in contrib)
        z += self._area_logit(area)
        return self._relevance(_sigmoid(self.scale * (z - self.mid))), fired

    def _readable(self, term: str) -> bool:
        """Whether a word that fired is shown as one: a dictionary word, or one of the
        model's ``SHOWN_WORDS`` strongest (a name the dictionary lacks, 恒大, that the site
        prints again and again). The fragments jieba makes up around a name it does not know
        weigh in the model like any word, but named as words they read as noise (难助, 索将
        in a football story's explanation)."""
        if textmod.in_dictionary(term):
            return True
        model = self.model
        if model is None:
            return False
        if self._top_words[0] is not model:
            top = heapq.nlargest(SHOWN_WORDS, model.weights.items(), key=lambda kv: kv[1])
            self._top_words = (model, frozenset(t for t, w in top if w > 0))
        return term in self._top_words[1]

    def probability_now(self, url: str) -> float | None:
        """The probability the model gives now to an item this visit judged (as ``judge``
        gave it then, with what has been learned since); None for a page it did not judge as
        an item, or one whose words it no longer keeps (``_forget_features``: a pushed page
        that left the refit window). The crawl's steering counts its items at this value."""
        seen = self._by_url.get(url)
        if seen is None or seen.earlier or not seen.features:
            return None
        return self._probability(seen, explain=False)[0]

    # -- learning -------------------------------------------------------------------------
    def _maybe_refit(self) -> None:
        if len(self.seen) < self.params["min_items"]:
            return
        own = self._observed
        if self.prior is not None and own < self.params["warm_items"] * self.params["prior_hold"]:
            return  # the last visit's model judges until this visit has enough pages of its own
        n = self._earlier + own
        last = max(self._fitted_at, self._flat_at)
        if last and n < last * 1.5 and n - last < 200:
            return
        if self.model is None and not self._enough_positives():
            # no fit can be made yet, and nothing judges: the refit would stop at its first
            # fit after a pass over every page (on a site that seldom prints the user's words,
            # on every page: quadratic, the CPU of the whole judgment before the first fit)
            return
        self._refit()

    def _enough_positives(self) -> bool:
        """Whether a fit could have ``min_positives`` positives: the pages that could be first
        positives (``_literal_positive`` with ``_weak`` on) and the user's 👍 (as verdicts
        and as examples) — at least as many as the fit will count."""
        need = int(self.params["min_positives"])
        have = sum(1 for _, label in self.feedback if label)
        have += sum(1 for _, label in self._verdicts if label)
        if have >= need:
            return True
        weak = bool(self.params["weak_positives"])
        for s in self.seen:
            if self._literal_positive(s, weak=weak):
                have += 1
                if have >= need:
                    return True
        return False

    def _refit(self) -> None:
        """Positive-unlabelled fit, then self-training: ``g`` separates the positives (literal,
        and 👍) from the rest; ``c`` = mean held-out ``g`` over the literal positives (2-fold
        cross-fit); P(relevant) = g / c. Once the visit has ``warm_items`` items (or at its
        end), up to ``expand`` more rounds follow: the unlabelled items the last fit judges
        relevant (probability ≥ ``expand_at``, at most ``expand_growth`` × the positives, and
        during the visit so many that the positives make at most ``visit_share`` of the items)
        join the positives for the next fit, weighted by that probability — the topic's pages
        that never print the keyword teach the model what the literal ones alone cannot. At
        the end of a visit ``expand_long`` rounds follow in which only pages of at least
        ``long_words`` words come and go (a few sentences: a course page or a lecture holding
        part of a story, reached a few more each round; a headline is not), then
        ``expand_short`` rounds in which the long pages stay as they are and only short ones
        (``_short``) come and go, at probability ≥ ``expand_at_late``: each round's positives
        hold more pages taken on the model's word, and a headline carries a word or two of
        evidence. A phase whose pages settle ends early; the last one ends the rounds. A page
        the user gave a verdict on keeps it. No round takes a page too few of whose nearest
        items are positives (``_lonely``). At the end of a visit a round takes at most
        ``expand_step`` × the literal positives more than the last one took, the highest
        first: a slower start let the later fits, which know more, choose the rest.
        """
        p = self.params
        items = self.seen[-int(p["max_examples"]) :]
        for s in items:
            self._without_site_name(s)
        verdicts = dict(self._verdicts)
        self._weak = bool(p["weak_positives"]) and (
            sum(1 for s in items if s.positive) < p["warm_positives"]
        )
        base: list[float] = []
        judged: set[int] = set()
        for i, s in enumerate(items):
            # the user's verdict on a page overrides its pseudo-label
            verdict = (
                verdicts.get(_page_key(s.url), verdicts.get(_title_key(s.title)))
                if verdicts
                else None
            )
            if verdict is not None:
                judged.add(i)
            base.append(float(self._literal_positive(s) if verdict is None else verdict))
        # none when the pages that print the keywords are already a large share of the items
        # (a coarse topic): there they cover the topic, and what self-training adds is mostly
        # the off-topic pages next to it (during the visit it also led the crawl astray)
        # (the pages whose URLs or breadcrumbs alone name the topic's section do not count:
        # they cover the sections a site names, not the topic's pages elsewhere, on a site or
        # a part of it whose URLs and pages do not say where they live; counted, self-training
        # did not run where half the sites show breadcrumbs, and the others' pages of the topic
        # were not reached: docs/benchmarks.md, "The section a page's breadcrumb names")
        by_words = sum(y for y, s in zip(base, items, strict=True) if not (s.by_url or s.filed))
        narrow = by_words < p["expand_share"] * len(items)
        self._narrow = narrow
        if self._final:
            # the later phases follow ``expand``: none when self-training is off (``expand`` 0)
            rounds = (
                int(p["expand"] + p["expand_long"] + p["expand_short"])
                if narrow and p["expand"]
                else 0
            )
        else:
            # during the visit, once it has enough items: the rounds of the end's first phase
            # (``expand_visit``, as many as ``expand``), not its later ones. The crawl steers
            # by these fits: with one round the visit's probabilities ranked a one-keyword
            # topic's pages far below what the end then found, and the crawl followed
            # (docs/benchmarks.md, "Six self-training rounds during a visit")
            warm = len(items) >= p["warm_items"]
            rounds = int(min(p["expand"], p["expand_visit"])) if warm and narrow else 0
        vetoed = self._veto(items, base) if rounds else None
        self._filing = self._filing_sites(items) if p["sections"] else frozenset()
        # the items known to be off the topic (``_filed_elsewhere``): never taken, and what
        # the others' words must score above (``_filed_floor``)
        elsewhere = (
            [i for i, s in enumerate(items) if self._filed_elsewhere(s)]
            if rounds and self._filing
            else []
        )
        off_topic = frozenset(elsewhere)
        lonely = self._lonely(items, base) if rounds and (p["knn"] or p["knn_short"]) else None
        # how many items the rounds may take (the same in every round)
        cap = int(p["expand_growth"] * max(1.0, sum(base)))
        if not self._final and p["visit_share"]:
            # during a visit the rounds take at most ``visit_share`` of the items as
            # positives, the literal ones included: a crawl that steers well fetches
            # mostly the topic, and rounds that took nearly every item (on a web whose
            # URLs and titles name no section, 197 of 201, 626 of 653) left little to
            # contrast the topic with: the probabilities the crawl steered by ranked the
            # visit's items at 0.60–0.77, capped at 0.81–0.85 (docs/benchmarks.md, "Half
            # the items at most during a visit"). The end of the visit reads the whole
            # site: no cap there.
            cap = min(cap, max(0, int(p["visit_share"] * len(items) - sum(base))))
        # at the end of a visit, how many more pages than the last one a round may take: a
        # step at a time, on ten small Chinese webs whose URLs and titles name no section, a
        # coarse concern seeded in its section pushed 92 off-topic items where one round that
        # took all it could led to 677 (of about 1,100; docs/benchmarks.md, "Self-training a
        # round at a time"); during a visit ``visit_share`` bounds the rounds. The step is
        # counted in the literal positives, not in the user's 👍: those go to pages the
        # model already pushed, and counted, the clicks on a 200-page visit of a portal let
        # the rounds take 105 pages, 62 of them other sports, where they take 72 (34) now
        # (docs/benchmarks.md, "A verdict is on its page")
        step = (
            int(p["expand_step"] * max(1.0, sum(y for i, y in enumerate(base) if i not in judged)))
            if self._final and p["expand_step"]
            else None
        )
        expanded: dict[int, float] = {}
        best: tuple[float, dict[int, float]] = (0.0, expanded)
        round_ = -1
        while round_ < rounds:
            round_ += 1
            self._last_round = round_ == rounds
            held, expanded, best = self._fit_round(items, base, expanded, best)
            if held is None:
                if not round_:
                    return
                break
            if round_ == rounds:
                break
            floor = self._filed_floor([held[i] for i in elsewhere])
            probs = {
                i: 1.0 - (1.0 - items[i].literal) * (1.0 - self._held_probability(items[i], z))
                for i, z in enumerate(held)
                if not base[i] and i not in judged and not items[i].excluded
            }
            # past ``expand`` rounds (only the end of a visit has any) only pages of a few
            # sentences come and go (``expand_long``), then only short ones (``_short``); the
            # others stay as they are
            longer = p["expand"] <= round_ < p["expand"] + p["expand_long"]
            late = round_ >= p["expand"] + p["expand_long"]
            moves = (
                (lambda s: len(s.features) >= p["long_words"])
                if longer
                else (self._short if late else None)
            )
            ranked = sorted(
                (pr, i)
                for i, pr in probs.items()
                if pr >= p["expand_at_late" if late else "expand_at"]
                and (floor is None or held[i] > floor)
                and not (vetoed and vetoed(i))
                and not (lonely and lonely(i))
                and i not in off_topic
                and (moves is None or moves(items[i]))
            )
            kept = {i: pr for i, pr in expanded.items() if moves and not moves(items[i])}
            room = cap if step is None else min(cap, len(expanded) + step)
            grown = kept | {i: pr for pr, i in ranked[::-1][: max(0, room - len(kept))]}
            if grown.keys() == expanded.keys():
                if longer:  # the pages of a few sentences settled: on to the short ones
                    round_ = int(p["expand"] + p["expand_long"]) - 1
                    continue
                break
            expanded = grown
        self.expanded = {items[i].url for i in expanded}
        self._fitted_at = self._earlier + self._observed
        self._final_fit = self._final
        self._fitted_positives = int(sum(base)) + sum(1 for _, label in self.feedback if label)

    def _fit_round(
        self,
        items: Sequence[_Seen],
        base: Sequence[float],
        expanded: dict[int, float],
        best: tuple[float, dict[int, float]],
    ) -> tuple[list[float] | None, dict[int, float], tuple[float, dict[int, float]]]:
        """One self-training round's fit on ``base`` and the pages taken (``expanded``): its
        held-out logits (None: no fit, the rounds end), the pages it was fitted with, and
        ``best`` as it stands after it: the highest ``c`` (the literal positives' mean
        P(labelled), unfloored) of this refit's fits and the pages taken for it. When this
        fit's ``c`` is under ``drift`` × that, the pages the rounds took since pulled the fit
        away from the pages that print the user's words: the fit no longer holds those for
        typical of the positives. The best fit is made again, and the rounds end there (None,
        its pages). A visit's last fit, which weighs its text otherwise (``_text_weight``), is
        not compared.

        On a crawl of four Chinese portals whose twenty correct clicks (14 👍 on pushed
        football stories) made the next fits learn 中国, 百万 and 年薪, ``c`` fell from 0.18
        to 0.06 in the second round; the rounds went on taking nine more pages each, most of
        them housing and finance stories, and the clicks took F1 from 0.69 to 0.37 (409
        pushes). Undone at that round: 0.49 (docs/benchmarks.md, "A round that pulls the fit
        away from the keyword's pages is undone")."""

        def fit(taken: dict[int, float]) -> list[float] | None:
            labels = [1.0 if i in taken else y for i, y in enumerate(base)]
            return self._fit_once(items, labels, taken)

        held = fit(expanded)
        if held is None or self._last_round or not self.params["drift"]:
            return held, expanded, best
        if expanded and self._held_c < self.params["drift"] * best[0]:
            fit(best[1])
            return None, best[1], best
        if self._held_c > best[0]:
            best = (self._held_c, expanded)
        return held, expanded, best

    def _filed_floor(self, known: Sequence[float]) -> float | None:
        """What a page's words must score (the fit's held-out logit: the words alone, not
        the place) for self-training to take it: above ``filed_floor`` % of ``known``, the
        held-out logits of the pages known to be off the topic — those a site whose
        breadcrumbs or bylines file the topic's pages under a section the user's words name
        files under another (``_filed_elsewhere``), when there are ``filed_min`` of them. On
        such sites the topic's pages and the others are labelled: the one check the crawl has
        of what its words would take elsewhere. Where the words tell the two apart, the known
        ones score low and nothing changes; where they do not (two Chinese blog webs whose
        posts are a headline and its keywords), a page is taken only on words the known
        off-topic pages do not share. None: too few such pages."""
        p = self.params
        if not p["filed_floor"] or len(known) < p["filed_min"]:
            return None
        return float(np.percentile(known, p["filed_floor"]))

    def _literal_positive(self, seen: _Seen, *, weak: bool | None = None) -> bool:
        """A first positive: the user's words strongly on the page; while fewer than
        ``warm_positives`` items have them so (``_weak``, ``weak_positives``; ``weak`` says
        instead), also twice in its text, or once in a short one (``p_body_some``)."""
        if weak is None:
            weak = self._weak
        return seen.positive or (
            weak and seen.literal >= self.params["p_body_some"] and not seen.excluded
        )

    def first_positives(self) -> int:
        """How many of the items seen (a saved state's included) could be a fit's first
        positives, counted as ``_enough_positives`` counts them (``_literal_positive``; the
        weak ones too where ``weak_positives``)."""
        weak = bool(self.params["weak_positives"])
        return sum(1 for s in self.seen if self._literal_positive(s, weak=weak))

    def _filing_sites(self, items: Sequence[_Seen]) -> frozenset[str]:
        """The sites whose breadcrumbs file at least ``min_positives`` of ``items`` under a
        section the user's words name: such a site says where its topic's pages are
        (``_filed_elsewhere``)."""
        named = Counter(site_of(s.url) for s in items if _names_in_section(s))
        need = self.params["min_positives"]
        return frozenset(site for site, n in named.items() if n >= need)

    def _filed_elsewhere(self, seen: _Seen) -> bool:
        """A page whose breadcrumb files it under a section the user's words do not name, on
        a site that files the topic's pages under one they name (``_filing_sites``, as of
        the last fit): not one of the topic's pages, whatever its words look like.
        Self-training never takes it, and the model alone does not push it (on ten small webs
        whose stories show breadcrumbs, self-training from the stories filed under 体育 took
        104 of another section's stories in one visit). On a site whose breadcrumbs never
        name the user's words (足球 filed under 体育) they say nothing of the topic."""
        return (
            bool(self._filing)
            and seen.sectioned
            and site_of(seen.url) in self._filing
            and not _names_in_section(seen)
        )

    def _short(self, seen: _Seen) -> bool:
        """A page with few words (under ``short_words`` distinct ones: a headline and a line
        under it). Self-training reaches such pages slowly, a word at a time: a round takes
        only those sharing a word with what the last one took, and the topic's names are many
        (clubs, players, competitions). A long page shares enough words with the topic's
        pages to be reached in the first rounds; what later rounds add among long pages is the
        neighbouring topic (a fine topic's sibling sport)."""
        return len(seen.features) < self.params["short_words"]

    def _veto(self, items: Sequence[_Seen], base: Sequence[float]) -> Callable[[int], bool] | None:
        """What self-training must not take (by index in ``items``): a page more like one the
        user marked 👎 than like anything known to be on the topic — each page the user marked
        👍, and the centre of the positives in ``base`` (the literal ones and the verdicts) —
        by more than ``veto_margin`` (cosines of the unit-length features; 1 turns the veto
        off). The model alone would add such a page when the literal positives happen to
        resemble it (a fine topic's literal pages next to a sibling topic's), and every one
        pulls the next round further towards the sibling; the user's 👎 says where that border
        is. The centre keeps a few 👎 and no 👍 from vetoing the topic itself. Each page is
        compared once per refit, and only when a round would take it. None when there is no
        👎."""
        margin = self.params["veto_margin"]
        downs = [f for f, label in self.feedback if not label]
        if not downs or margin >= 1.0:
            return None
        ups = [f for f, label in self.feedback if label]
        centre: dict[str, float] = {}
        for seen, y in zip(items, base, strict=True):
            if y:
                for t, v in seen.features.items():
                    centre[t] = centre.get(t, 0.0) + v
        if centre:
            ups.append(_unit(centre))
        verdicts = _Cosines(downs + ups)
        n_down = len(downs)

        @functools.cache
        def vetoed(i: int) -> bool:
            cos = verdicts.of(items[i].features)
            best_up = float(cos[n_down:].max()) if len(cos) > n_down else 0.0
            return float(cos[:n_down].max()) - margin > best_up

        return vetoed

    def _lonely(self, items: Sequence[_Seen], base: Sequence[float]) -> Callable[[int], bool]:
        """What self-training must not take (by index in ``items``): a page with fewer than
        ``knn_min`` positives of ``base`` (the pages that print the user's words, and the
        verdicts) among its ``knn`` nearest items — cosine of the features, the user's words
        masked; a short page (``_short``), whose few words make its nearest pages a looser
        neighbourhood: fewer than ``knn_short_min`` among its ``knn_short`` nearest (0: not
        checked). A fine topic's pages that never print the keyword sit among pages that do
        (one in six or eight prints it); a sibling topic's pages sit among their own, which
        do not. Without the check each round takes what the pages taken before lead to: a
        sibling sport shares the words of sport with the literal positives, the first round
        takes some of it, and every later round more (an English web of six small portals:
        the last model learned "sport", F1 0.42–0.47). Each page is compared once per refit,
        and only when a round would take it."""
        p = self.params
        n = len(items)
        neighbours = _Cosines([seen.features for seen in items])
        positive = np.array([bool(y) for y in base])

        @functools.cache
        def lonely(i: int) -> bool:
            short = self._short(items[i])
            k = int(p["knn_short"] if short else p["knn"])
            if not k:
                return False
            need = p["knn_short_min"] if short else p["knn_min"]
            sims = neighbours.of(items[i].features)
            sims[i] = -1.0
            near = np.argpartition(-sims, min(k, n - 1))[:k]
            return int(positive[near].sum()) < need

        return lonely

    def _held_probability(self, seen: _Seen, held: float) -> float:
        """P(relevant) of a page the last fit scored held-out (``held``: its logit), as Elkan
        & Noto give it (not stretched: what self-training takes, and how much each page weighs
        there, does not depend on the push threshold)."""
        z = held + (self._area_logit(self._area(seen)) if self.params["area"] else 0.0)
        return self._relevance(_sigmoid(self.scale * (z - self.mid)), stretch=False)

    def _relevance(self, labelled: float, *, stretch: bool = True) -> float:
        """P(relevant) from P(labelled | page) (Elkan & Noto: ``labelled / c``), with the top
        stretched so that it keeps the order. Pages the model finds as typical of the literal
        positives as the positives themselves (``labelled ≥ c``) would all be 1.0, and in a
        fine topic that is most of what is pushed: a threshold above the default could then
        not tell them apart. From ``stretch`` (the default threshold) up, ``labelled / c`` is
        mapped linearly onto [stretch, 1] as ``labelled`` goes from ``stretch · c`` to 1, so a
        decision at a threshold up to ``stretch`` is exactly what it was, and a stricter one
        asks for more. ``stretch=False``: Elkan & Noto's value as it is."""
        c, knee = self.c, self.params["stretch"] if stretch else 0.0
        if not knee or labelled <= knee * c:
            return min(1.0, labelled / c)
        return min(1.0, knee + (1.0 - knee) * (labelled - knee * c) / max(1e-9, 1.0 - knee * c))

    def _fit_once(
        self, items: Sequence[_Seen], labels: list[float], expanded: Mapping[int, float]
    ) -> list[float] | None:
        """One positive-unlabelled fit on ``items`` (+ the user's examples); sets the model and
        its calibration and returns the items' held-out logits (None: too few of a class)."""
        p = self.params
        positives = sum(1 for y in labels if y) + sum(1 for _, y in self.feedback if y)
        others = len(labels) + len(self.feedback) - positives
        too_few = min(positives, others) < p["min_positives"]
        if too_few and self.model is None:
            # no model judges yet, so nothing reads the closeness to the topic's area computed
            # below: skipped (a concern whose words are rare on the site tried again on every
            # page, each time over every page: quadratic)
            return None
        rows: list[Mapping[str, float]] = [s.features for s in items]
        labels = list(labels)
        weights = [
            p["expand_weight"] * expanded[i] if i in expanded else 1.0 for i in range(len(items))
        ]
        if p["area"]:
            # contrast the positives with their neighbours, not with the whole site
            self.affinity = self.areas.affinity(
                (s.url for s in items),
                {s.url for s, y in zip(items, labels, strict=True) if y},
                walk=p["area_walk"],
            )
            floor = p["area_floor"]
            weights = [
                w if y else max(floor, self._area(s))
                for s, y, w in zip(items, labels, weights, strict=True)
            ]
        for features, label in self.feedback:
            rows.append(features)
            labels.append(1.0 if label else 0.0)
            weights.append(p["feedback_weight"])
        if too_few:  # a model judges: the closeness above is read, but nothing is fitted
            return None
        # balanced: the labelled and the unlabelled pages weigh the same in total. A 👎 adds
        # to the unlabelled pages' weight (``downs_apart``), as much as ``feedback_weight`` of
        # them on average: shared out with them, twenty 👎 on a visit of 200 pages took a
        # third to half the weight of the rest, and every page no one marked looked likelier
        # to be on the topic (a visit whose twenty pushes the user all marked wrong pushed 62
        # other wrong pages instead of 44: docs/benchmarks.md, "What a 👎 weighs")
        pos_w = sum(w for w, y in zip(weights, labels, strict=True) if y > 0)
        n = len(items)
        apart = bool(p["downs_apart"])
        unl_w = sum(
            w
            for i, (w, y) in enumerate(zip(weights, labels, strict=True))
            if not y and (i < n or not apart)
        )
        down_w = p["feedback_weight"] / max(1, sum(1 for y in labels[:n] if not y))
        weights = [
            w / pos_w if y > 0 else down_w if apart and i >= n else w / unl_w
            for i, (w, y) in enumerate(zip(weights, labels, strict=True))
        ]
        # from scratch, not from the last visit's model: it saw these pages too, and would
        # leak the held-out pages into their own scores
        fit = functools.partial(_Model.fit, l2=p["l2"], epochs=int(p["epochs"]))
        held: list[float] = [0.0] * len(rows)
        # two folds, stratified: every other positive and every other unlabelled page
        folds = [0] * len(rows)
        turn = {0.0: 0, 1.0: 0}
        for i, y in enumerate(labels):
            folds[i] = turn[y]
            turn[y] ^= 1
        models = []
        for fold in (0, 1):
            train = [i for i in range(len(rows)) if folds[i] != fold]
            model = fit(
                [rows[i] for i in train], [labels[i] for i in train], [weights[i] for i in train]
            )
            models.append(model)
            for i in range(len(rows)):
                if folds[i] == fold:
                    held[i] = model.logit(rows[i])
        # Platt scaling of the held-out scores to P(labelled | page), then Elkan & Noto:
        # P(relevant | page) = P(labelled | page) / c, c = mean P(labelled) of the labelled
        scored = held
        alpha = 1.0
        if p["area"] and self.affinity is not None:
            # the page's place on the site is part of the score: log-closeness to the area
            areas = [self._area(s) for s in items] + [
                self.affinity("", sec) for sec in self._feedback_sections
            ]
            if p["text_select"] and self._final and self._last_round:
                # a long visit has mapped the site well enough for its closeness to lead
                long = p["text_long"] and self._observed >= p["text_long_items"]
                alpha = p["text_long"] if long else self._text_weight(held, areas, items, labels)
                if alpha != 1.0:
                    held = [alpha * z for z in held]
                    models = [m.scaled(alpha) for m in models]
            scored = [z + self._area_logit(a) for z, a in zip(held, areas, strict=True)]
        scale, mid = _platt(scored, labels)
        if scale <= _FLAT:
            # the held-out scores do not rank the positives above the rest: this fit learned
            # nothing it can tell pages apart by (each page would get the same probability);
            # during a visit the model that judged before it (this visit's last fit, the last
            # visit's, or none) stays, at its end none does (``_learned_nothing``); the next
            # fit waits as after one that did (tried again on every page, each time over all
            # the items, such a visit cost ten times the CPU)
            self._learned_nothing()
            return None
        self.held = {s.url: held[i] for i, s in enumerate(items)}
        self.scale, self.mid = scale, mid
        calibrated = [_sigmoid(self.scale * (z - self.mid)) for z in scored]
        # c from the literal positives only: the user's 👍 go to pages the model already ranks
        # high, and the expanded ones were chosen for a high score; counting either would make
        # every other page look less likely
        literal = [i for i, s in enumerate(items) if self._literal_positive(s) and labels[i] > 0]
        labelled = [calibrated[i] for i in literal or range(len(rows)) if labels[i] > 0]
        self._held_c = sum(labelled) / len(labelled)
        self.c = min(1.0, max(p["c_min"], self._held_c))
        # new pages are scored by the mean of the two fold models: the scale the calibration
        # was fitted on (a model trained on everything is more confident than its folds)
        self.model = _Model.mean(models).pruned(int(p["max_weights"]))
        self.text_weight = alpha
        return held[: len(items)]

    def _learned_nothing(self) -> None:
        """A fit ranked nothing (``_FLAT``). During a visit the model before it stays, and the
        next fit waits as after one that learned. At the end of a visit the fit read every
        page the model knows of, and one that stayed would judge them by the words it learned
        from a few of them (on a Chinese blog of headlines, a fit on the visit's first 23
        pages, 3 positives, set every one of its 492 items at 0.65–0.69, and all were
        pushed, 41 right): no model judges, and what the user's words carry is pushed."""
        self._flat_at = self._earlier + self._observed
        if self._final:
            self._forget_model()

    def _forget_model(self) -> None:
        """No model judges any more (nor is saved for the next visit): what the user's words
        carry is pushed, and the next fit starts afresh."""
        self.model = None
        self.held = {}
        self.expanded = set()
        self._link_cache.clear()
        self._learned_at = -1

    def _text_weight(
        self,
        held: Sequence[float],
        areas: Sequence[float],
        items: Sequence[_Seen],
        labels: Sequence[float],
    ) -> float:
        """How much the text's held-out score counts against the closeness to the topic's
        area in the visit's last fit (``text_select``): of ``_TEXT_WEIGHTS``, the weight under
        which the items the user's words label rank highest among the items nobody labelled
        (area under the ROC curve; a tie keeps 1). On a site of headlines and stock sentences
        the text says little once self-training has taken the typical pages: on the lab webs
        whose URLs and titles name no section the last fit's text ranked the unlabelled
        on-topic items at an AUC of 0.39–0.65 while the closeness alone ranked them at
        0.89–0.98. The pages self-training took do not vote: the model chose them. Only in
        the refit at the end of a visit, in its last planned fit (self-training's last round,
        or the one fit where there is no self-training; rounds that settle before it keep 1):
        chosen in every fit, a lower weight changed what the rounds took and lost more than
        it gained (docs/benchmarks.md, "The text's weight in a visit's last fit").

        A visit that fetched ``text_long_items`` items itself (a concern's first visit)
        weighs the text at ``text_long`` instead of choosing: the pages the user's words label
        are the ones the text model learned first, so the choice leans towards the text, and
        the pages it misses are the topic's pockets that self-training never reached, whose
        words the fit learned as the rest of the site's. A short visit (a revisit) has too
        thin a map of the site for its closeness to lead, and keeps the choice (docs/
        benchmarks.md, "The text's weight in a long visit's last fit")."""
        n = len(items)
        pos = [i for i in range(n) if labels[i] > 0 and self._literal_positive(items[i])]
        neg = [i for i in range(n) if not labels[i]]
        if min(len(pos), len(neg)) < self.params["min_positives"]:
            return 1.0
        logs = [self._area_logit(a) for a in areas[:n]]
        best, best_auc = 1.0, -1.0
        for alpha in _TEXT_WEIGHTS:
            score = [alpha * held[i] + logs[i] for i in range(n)]
            value = roc_auc([score[i] for i in pos], [score[i] for i in neg])
            if value > best_auc + 1e-9 or (abs(value - best_auc) <= 1e-9 and alpha == 1.0):
                best, best_auc = alpha, value
        return best

    def finish(self, *, every: bool = False) -> list[tuple[str, Judgment]]:
        """End of the visit: refit on everything seen and re-judge the items not yet pushed.

        Returns (url, judgment) for each item that is pushed now; marks them pushed. With
        ``every``, also each other item judged again (its judgment is not ``relevant``): what
        the end of the visit made of a page whose decision waited for it.
        """
        self._final = True
        # a visit too short to expand during it (``warm_items``) expands now
        short = self.params["expand"] and len(self.seen) < self.params["warm_items"]
        # refitted with the end's rounds: a fit during the visit (on its last page, say) had
        # fewer; a visit that added nothing to what earlier visits taught keeps their model
        if (self._observed and not self._final_fit) or short:
            self._refit()
        out = []
        for seen in self.seen:
            if seen.pushed:
                continue
            judgment = self._decide(seen)
            if judgment.relevant:
                seen.pushed = True
            if judgment.relevant or (every and self._own_item(seen)):
                out.append((seen.url, judgment))
        return out

    @staticmethod
    def _own_item(seen: _Seen) -> bool:
        """An item this visit fetched (not an earlier visit's, kept to learn from)."""
        return seen.kind == ITEM and not seen.earlier

    def undecided(self) -> int:
        """How many of this visit's items ``finish`` judges again (those not pushed yet)."""
        return sum(1 for seen in self.seen if not seen.pushed and self._own_item(seen))

    # -- what was learned -----------------------------------------------------------------
    def learned_terms(self, n: int = 20) -> list[tuple[str, float]]:
        """The model's strongest topic words (positive weights), strongest first, each at its
        weight in the text model (the user sees them after every visit: a long visit's last
        fit weighs the text at a tenth, and they read ten times weaker than after a short one)."""
        if self.model is None:
            return []
        top = sorted(
            ((t, w) for t, w in self.model.weights.items() if w > 0 and t not in self.blocked),
            key=lambda kv: -kv[1],
        )
        return [(t, round(w / (self.text_weight or 1.0), 3)) for t, w in top[:n]]

    @functools.cached_property
    def gives_subject(self) -> bool:
        """The user's terms name a whole subject ("sports", 体育), not only topics filed under
        one ("football")."""
        return names_a_subject(self.profile.user_terms)

    @property
    def names_subjects(self) -> bool:
        """Links are judged with the words naming the subject the user's words are filed
        under (``p_broader``): there are such words, and the model is not warm."""
        return self._broader is not None and bool(self.params["p_broader"]) and not self.warm

    def url_probability(self, url: str) -> float:
        """How likely the page behind a URL is on-topic by the section the URL names: a user's
        word among its ``url_words`` counts as on a fetched page (``p_url``); until the model
        is warm, a word that names the subject the user's words are filed under
        (``/sport/`` for football) ``p_broader``; else 0. As if no word named the subject:
        ``url_probabilities``."""
        return self.url_probabilities(url)[0]

    def url_probabilities(self, url: str) -> tuple[float, float]:
        """``url_probability`` with and without the subject's words, from one reading."""
        if not self.params["p_url"]:
            return 0.0, 0.0
        words = _stem_all(url_words(url))
        if self._user_index.match(words):
            return self.params["p_url"], self.params["p_url"]
        return self._broader_probability(words), 0.0

    def _broader_probability(self, tokens: Sequence[str]) -> float:
        """``p_broader`` for words that name a subject the user's terms belong to (the sports
        section for "football"), while the model is not warm; else 0: once it is, the model's
        own words and what the crawl learned about the site's parts say more."""
        subjects = self._broader
        if subjects is None or not self.names_subjects or not subjects.match(tokens):
            return 0.0
        return self.params["p_broader"]

    def link_probability(self, text: str, *, subject: bool = True) -> float:
        """How likely the page behind a link is on-topic, judged from the link's own text
        (anchor, surrounding words) the way a page's headline is: a user's word in it counts as
        in a title (``p_title``); once the model is warm — on a narrow topic as soon as one is
        fitted (``link_early``: the crawl cannot wait for the evidence pushing waits for) — its
        strongest learned words count up to half that, by their weight relative to the
        strongest (a few words of link text are too short for the page model's calibrated
        probability); until it is warm, a word that names the subject the user's words are
        filed under (``crawler.categories``: "Sport" for football) counts ``p_broader``. In
        [0, 1]. Without ``subject``, as if no word named it (``link_probabilities``)."""
        return self.link_probabilities(text)[0 if subject else 1]

    def link_probabilities(self, text: str) -> tuple[float, float]:
        """``link_probability`` with and without the subject's words, from one reading of the
        text (cached per fit: the crawl asks for both while the model is cold)."""
        if not text:
            return 0.0, 0.0
        key = (text, self._fitted_at)
        hit = self._link_cache.get(key)
        if hit is not None:
            return hit
        tokens = _stem_all(textmod.tokenize(text, self.profile.words))
        value = self.params["p_title"] if self._user_index.match(tokens) else 0.0
        raised = value
        if self._exclude and self.profile.excluded_in(tokens):
            value = raised = 0.0
        elif value == 0.0:
            if self.warm or self._steers_early:
                learned = self._learned_weights()
                value = (
                    0.5
                    * self.params["p_title"]
                    * max((learned.get(t, 0.0) for t in tokens), default=0.0)
                )
            raised = max(value, self._broader_probability(tokens))
        if len(self._link_cache) > 50_000:
            self._link_cache.clear()
        self._link_cache[key] = (raised, value)
        return raised, value

    @property
    def _steers_early(self) -> bool:
        """A narrow topic's links are judged by the model as soon as one is fitted: most of
        the topic's links never say the keyword, and the crawl cannot wait as pushing does."""
        return bool(self.params["link_early"]) and self.model is not None and self._narrow

    def _learned_weights(self) -> dict[str, float]:
        """The model's 50 strongest words, weights relative to the strongest (cached per fit)."""
        if self._learned_at != self._fitted_at:
            top = self.learned_terms(50)
            best = top[0][1] if top else 1.0
            self._learned = {t: w / best for t, w in top}
            self._learned_at = self._fitted_at
        return self._learned

    def state(self) -> dict[str, Any]:
        """JSON-able model state, for the next visit."""
        model = self.model
        return {
            "version": STATE_VERSION,
            "weights": {t: round(w, 5) for t, w in (model.weights.items() if model else ())},
            "bias": round(model.bias, 5) if model else 0.0,
            "mid": round(self.mid, 5),
            "c": round(self.c, 5),
            "scale": round(self.scale, 5),
            "text": round(self.text_weight, 4),
            "items": self.history_items + self._observed,
            "sections": {
                sec: round(v, 4) for sec, v in list((self.affinity.sections or {}).items())[:500]
            }
            if self.affinity is not None
            else {},
            "sites": {
                site: round(v, 4) for site, v in list((self.affinity.site_tops or {}).items())[:500]
            }
            if self.affinity is not None
            else {},
            "history": self._saved_history(),
            "taught": self._taught,
        }

    def _saved_history(self) -> list[dict[str, Any]]:
        """The last ``history`` items (this visit's and earlier ones) as the next visit learns
        from them: each page's strongest ``history_words`` words, its pseudo-label, its
        closeness to the topic's area and the exclude words it printed (never taken as a
        positive). A concern's visits are short (200 pages by default)
        and find a few new pages each; a model fitted on one visit's pages alone is fitted on
        too few, and drifts: the visits that find little of the topic pushed most of what they
        found. Taken from the refit window (``max_examples``): what the model was fitted on."""
        keep = int(min(self.params["history"], self.params["max_examples"]))
        words = int(self.params["history_words"])
        out = []
        for s in self.seen[-keep:] if keep > 0 else ():
            top = sorted(s.features.items(), key=lambda kv: -kv[1])[:words]
            out.append(
                {
                    "u": s.url,
                    "t": s.title,
                    "s": s.section,
                    "l": round(s.literal, 3),
                    "p": s.positive,
                    "a": round(self._area(s), 3),
                    "f": {t: round(v, 3) for t, v in top},
                }
                | ({"x": s.excluded} if s.excluded else {})
                | ({"n": 1} if self._declined(s) else {})
                | ({"b": 1} if s.by_url else {})
                | ({"c": 1} if s.filed else {})
            )
        return out

    def _declined(self, seen: _Seen) -> bool:
        """The page was judged and not pushed: by an earlier visit, or by this one once it has
        ended (during the visit a page not pushed yet may still be, at its end)."""
        return seen.declined if seen.earlier else self._final and not seen.pushed

    def _history(self, saved: Any) -> list[_Seen]:
        """Earlier visits' items from a saved state (``_saved_history``): learned from, never
        judged again. Words the concern now masks (a learned word the user removed, a new
        synonym) are dropped."""
        out: list[_Seen] = []
        for entry in saved if isinstance(saved, list) else ():
            try:
                words = {str(t): float(v) for t, v in entry["f"].items() if not self._masked(t)}
                seen = _Seen(
                    str(entry["u"]),
                    str(entry.get("t", "")),
                    _unit(words),
                    float(entry.get("l", 0.0)),
                    bool(entry.get("p", False)),
                    ITEM,
                    True,
                    {},
                    [str(t) for t in entry.get("x", ())],
                    [],
                    str(entry.get("s", "")),
                    float(entry.get("a", 1.0)),
                    True,
                    bool(entry.get("n", False)),
                    bool(entry.get("b", False)),
                    bool(entry.get("c", False)),
                )
            except (KeyError, TypeError, ValueError, AttributeError):
                continue  # a damaged entry: the rest still teach
            if seen.features:
                out.append(seen)
        return out
