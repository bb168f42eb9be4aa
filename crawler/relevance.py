"""Page relevance: how well a fetched page matches a topic profile (docs/algorithms.md §4).

Three scorers, each returning a ``Relevance`` with an explanation a user can read ("why you
got this": which terms, where, and whether a term was learned during the crawl):

* ``kp`` — keyword position (§4.1, the link strategies' default)::

      sim = N_t/S_t + w_meta·B_k + w_anchor·N_a/S_a  (+ w_body·min(1, N_b/body_saturation))

  Profile terms count with their weights: N_t is the *weighted* number of term occurrences
  among the title's S_t tokens, B_k the weight of the heaviest term in the meta keywords, N_a /
  S_a the same over the page's anchor texts. Stop words do not count in S_t / S_a (unless they
  are profile terms). Defaults are the thesis run: w_title 1, w_meta 0.75, w_anchor 0.25,
  threshold T 0.5, body off (w_body 0). Body text is an allowed, measured extension.
* ``fish`` — binary (§4.2): the weight of the heaviest profile term occurring anywhere (1 for a
  user keyword), relevant if ≥ threshold 0.5.
* ``vsm`` — TF-IDF cosine (§4.3) between the page (title tokens boosted ×3, sublinear tf,
  jieba's IDF table) and the topic vector (profile term weights plus example texts); relevant
  if ≥ threshold d (0.1).

A page containing an exclude word in its title, meta keywords or description scores 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from crawler import text as textmod
from crawler.profile import TopicProfile
from crawler.types import Page

__all__ = [
    "METHODS",
    "Relevance",
    "cosine",
    "kp_max",
    "page_vector",
    "score_page",
    "score_text",
    "topic_vector",
]

METHODS = ("kp", "fish", "vsm")

KP_DEFAULTS: dict[str, float] = {
    "w_title": 1.0,
    "w_meta": 0.75,
    "w_anchor": 0.25,
    "w_body": 0.0,
    "body_saturation": 5.0,
    "T": 0.5,
}
FISH_DEFAULTS: dict[str, float] = {"fish_threshold": 0.5}
VSM_DEFAULTS: dict[str, float] = {"d": 0.1, "title_boost": 3.0}


@dataclass
class Relevance:
    """A page's relevance score and why."""

    score: float
    threshold: float
    matched: bool
    terms: list[str] = field(default_factory=list)
    """Profile terms found on the page, heaviest first."""
    explanation: dict[str, Any] = field(default_factory=dict)
    """``{"method", "score", "parts": {where: value}, "hits": [{"term", "weight", "learned",
    "where": {where: count}}], "excluded": [...]}``."""
    probability: float | None = None
    """The judgment's probability that the page is on-topic, when a judgment ran."""


def kp_max(params: dict[str, float] | None = None) -> float:
    """The largest value the kp formula can take: w_title + w_meta + w_anchor + w_body."""
    p = {**KP_DEFAULTS, **(params or {})}
    return p["w_title"] + p["w_meta"] + p["w_anchor"] + p["w_body"]


def score_page(
    page: Page,
    profile: TopicProfile,
    *,
    method: str = "kp",
    params: dict[str, float] | None = None,
) -> Relevance:
    """Score ``page`` against ``profile`` with ``method`` in ``kp`` / ``fish`` / ``vsm``."""
    params = params or {}
    words = profile.words
    title = textmod.tokenize(page.title, words)
    meta = textmod.tokenize(page.meta_keywords, words)
    head = title + meta + textmod.tokenize(page.description, words)
    excluded = profile.excluded_in(head)
    if method == "kp":
        rel = _kp(page, profile, title, meta, params)
    elif method == "fish":
        rel = _fish(page, profile, head, params)
    elif method == "vsm":
        rel = _vsm(page, profile, title, params)
    else:
        raise ValueError(f"unknown relevance method {method!r}; choose one of {METHODS}")
    if excluded:
        rel.score, rel.matched = 0.0, False
        rel.explanation["excluded"] = excluded
        rel.explanation["score"] = 0.0
    return rel


def score_text(tokens: Sequence[str], profile: TopicProfile) -> tuple[float, list[str]]:
    """Weighted share of profile terms among ``tokens`` (in [0, 1]) and the terms found.

    Used for anchor / context text of a single link (SkyReach's extended metadata).
    """
    size = _size(tokens, profile)
    if not size:
        return 0.0, []
    hits = profile.match(tokens)
    weights = profile.terms()
    return min(1.0, sum(weights[t] for t in hits) / size), hits


def _size(tokens: Sequence[str], profile: TopicProfile) -> int:
    user = profile.terms()
    return sum(1 for t in tokens if t in user or not textmod.is_stopword(t))


class _Hits:
    def __init__(self, profile: TopicProfile) -> None:
        self.profile = profile
        self.weights = profile.terms()
        self.where: dict[str, Counter[str]] = {}

    def add(self, where: str, terms: list[str]) -> float:
        for term in terms:
            self.where.setdefault(term, Counter())[where] += 1
        return sum(self.weights[t] for t in terms)

    def result(
        self, method: str, score: float, threshold: float, parts: dict[str, float]
    ) -> Relevance:
        ordered = sorted(self.where, key=lambda t: (-self.weights[t], -sum(self.where[t].values())))
        hits = [
            {
                "term": t,
                "weight": self.weights[t],
                "learned": self.profile.is_learned(t),
                "where": dict(self.where[t]),
            }
            for t in ordered
        ]
        expl = {
            "method": method,
            "score": round(score, 4),
            "parts": {k: round(v, 4) for k, v in parts.items()},
            "hits": hits,
            "learned": [t for t in ordered if self.profile.is_learned(t)],
        }
        return Relevance(score, threshold, score >= threshold, ordered, expl)


def _kp(
    page: Page, profile: TopicProfile, title: list[str], meta: list[str], params: dict[str, float]
) -> Relevance:
    p = {**KP_DEFAULTS, **params}
    hits = _Hits(profile)
    s_t = _size(title, profile)
    n_t = hits.add("title", profile.match(title))
    meta_terms = profile.match(meta)
    hits.add("meta", meta_terms)
    b_k = max((hits.weights[t] for t in meta_terms), default=0.0)
    anchors = textmod.joined(textmod.tokenize(link.anchor, profile.words) for link in page.links)
    s_a = _size(anchors, profile)
    n_a = hits.add("anchor", profile.match(anchors))
    parts = {
        "title": p["w_title"] * (n_t / s_t if s_t else 0.0),
        "meta": p["w_meta"] * b_k,
        "anchor": p["w_anchor"] * (n_a / s_a if s_a else 0.0),
    }
    if p["w_body"]:
        n_b = hits.add("body", profile.match(textmod.tokenize(page.text, profile.words)))
        parts["body"] = p["w_body"] * min(1.0, n_b / p["body_saturation"])
    return hits.result("kp", sum(parts.values()), p["T"], parts)


def _fish(
    page: Page, profile: TopicProfile, head: list[str], params: dict[str, float]
) -> Relevance:
    p = {**FISH_DEFAULTS, **params}
    hits = _Hits(profile)
    hits.add("title", profile.match(head))
    words = profile.words
    hits.add("body", profile.match(textmod.tokenize(page.text, words)))
    anchors = textmod.joined(textmod.tokenize(link.anchor, words) for link in page.links)
    hits.add("anchor", profile.match(anchors))
    score = max((hits.weights[t] for t in hits.where), default=0.0)
    return hits.result("fish", score, p["fish_threshold"], {"max_weight": score})


def _idf() -> tuple[dict[str, float], float]:
    """jieba's bundled IDF table and its median (for unknown words)."""
    return textmod.idf_table()


def _vector(
    tokens: Sequence[str], boost: Sequence[str] = (), title_boost: float = 3.0
) -> dict[str, float]:
    idf, median = _idf()
    tf: dict[str, float] = dict(Counter(t for t in tokens if not textmod.is_stopword(t)))
    for t in boost:
        if not textmod.is_stopword(t):
            tf[t] = tf.get(t, 0.0) + title_boost
    return {t: (1.0 + math.log(n)) * idf.get(t, median) for t, n in tf.items()}


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    """Cosine similarity of two sparse vectors."""
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    if not dot:
        return 0.0
    na = math.sqrt(sum(v * v for v in a.values()))
    nb = math.sqrt(sum(v * v for v in b.values()))
    return dot / (na * nb)


def topic_vector(profile: TopicProfile) -> dict[str, float]:
    """Profile terms (weight × IDF) plus the TF-IDF vector of the example texts."""
    idf, median = _idf()
    vec: dict[str, float] = {}
    for ex in profile.examples:
        for t, v in _vector(textmod.tokenize(ex, profile.words)).items():
            vec[t] = vec.get(t, 0.0) + v
    top = max(vec.values(), default=1.0)
    for term, w in profile.terms().items():
        vec[term] = max(vec.get(term, 0.0), w * max(top, idf.get(term, median)))
    return vec


def page_vector(
    page: Page,
    title: list[str] | None = None,
    title_boost: float = 3.0,
    words: textmod.Words | None = None,
) -> dict[str, float]:
    title = textmod.tokenize(page.title, words) if title is None else title
    body = textmod.tokenize(" ".join((page.meta_keywords, page.description, page.text)), words)
    return _vector(body + title, boost=title, title_boost=title_boost)


def _vsm(
    page: Page, profile: TopicProfile, title: list[str], params: dict[str, float]
) -> Relevance:
    p = {**VSM_DEFAULTS, **params}
    hits = _Hits(profile)
    hits.add("title", profile.match(title))
    hits.add("body", profile.match(textmod.tokenize(page.text, profile.words)))
    vector = page_vector(page, title, p["title_boost"], profile.words)
    score = cosine(topic_vector(profile), vector)
    return hits.result("vsm", score, p["d"], {"cosine": score})
