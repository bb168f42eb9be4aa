"""The "why you got this" line of a message, from the judgment's explanation.

For the learned topic model (``method: "model"``) it names the literal keyword hits and where
they were found, the learned terms that fired (marked as learned), how close the page sits to
the topic's pages on its site (part of the model's score), the model's probability as a
percentage, the page kind and how many of the user's verdicts shaped the model. Other
explanations (the seed scorers) keep the keyword-and-score line of :func:`push.digest.why`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from push.digest import why

__all__ = ["explain_why", "keyword_fields", "own_and_learned", "site_area"]

_PLACES = {
    "zh": {
        "title": "标题",
        "body": "正文",
        "text": "正文",
        "meta": "元信息",
        "meta_keywords": "元信息",
        "description": "描述",
        "anchor": "链接文字",
        "url": "网址",
        "section": "栏目",
    },
    "en": {
        "title": "title",
        "body": "body",
        "text": "body",
        "meta": "meta",
        "meta_keywords": "meta",
        "description": "description",
        "anchor": "anchor text",
        "url": "URL",
        "section": "section",
    },
}
_KINDS = {
    "zh": {"item": "文章页", "hub": "栏目页"},
    "en": {"item": "article", "hub": "section page"},
}


def _hits(info: Mapping[str, Any], lang: str) -> tuple[list[str], list[str]]:
    """(literal hits with their places, learned terms that fired)."""
    places = _PLACES[lang]
    literal: list[str] = []
    learned: list[str] = []
    for hit in info.get("hits") or []:
        if not isinstance(hit, Mapping) or not str(hit.get("term", "")).strip():
            continue
        term = str(hit["term"])
        if hit.get("learned"):
            if term not in learned:
                learned.append(term)
            continue
        where = hit.get("where")
        where = where if isinstance(where, Mapping) else {}
        names: list[str] = []
        for key, count in where.items():
            name = places.get(str(key).lower())
            if count and name and name not in names:
                names.append(name)
        if names:
            sep = "、" if lang == "zh" else ", "
            term += f"（{sep.join(names)}）" if lang == "zh" else f" ({sep.join(names)})"
        literal.append(term)
    fired = info.get("learned")
    for term in fired if isinstance(fired, list) else []:
        if isinstance(term, str) and term.strip() and term not in learned:
            learned.append(term)
    return literal, learned


def own_and_learned(
    keywords: Sequence[str], explanation: Mapping[str, Any] | None
) -> tuple[list[str], list[str]]:
    """(the user's own words that matched, the learned words that fired) of a stored match:
    the learned topic model stores both together (the feed highlights both); told apart by
    the explanation's ``learned`` list."""
    info = explanation if isinstance(explanation, Mapping) else {}
    fired = info.get("learned") if info.get("method") == "model" else None
    learned = [t for t in fired if isinstance(t, str)] if isinstance(fired, list) else []
    shown = set(learned)
    own = [k for k in keywords if k not in shown]
    return own, [t for t in keywords if t in shown] + [t for t in learned if t not in keywords]


def keyword_fields(
    keywords: Sequence[str], explanation: Mapping[str, Any] | None
) -> dict[str, list[str]]:
    """``own_and_learned`` as a match's fields (the API's and the webhook events'):
    ``matched_keywords`` and ``learned_terms``."""
    own, learned = own_and_learned(keywords, explanation)
    return {"matched_keywords": own, "learned_terms": learned}


def site_area(explanation: Mapping[str, Any]) -> float | None:
    """How close the page sits to the topic's pages on its site, in [0, 1] (1: as close as
    they are to each other); None when the explanation does not say."""
    area = explanation.get("site_area")
    return min(1.0, max(0.0, float(area))) if isinstance(area, int | float) else None


def explain_why(
    explanation: Mapping[str, Any] | None, keywords: Sequence[str], score: float, lang: str
) -> str:
    """The why-line in ``lang`` ("zh" or "en")."""
    info = explanation if isinstance(explanation, Mapping) else {}
    probability = info.get("probability")
    if info.get("method") != "model" or not isinstance(probability, int | float):
        return why(keywords, score, lang)
    lang = "zh" if lang == "zh" else "en"
    literal, learned = _hits(info, lang)
    threshold = info.get("threshold")
    kind = _KINDS[lang].get(str(info.get("kind", "")), "")
    verdicts = info.get("feedback")
    n = verdicts if isinstance(verdicts, int) and verdicts > 0 else 0
    area = site_area(info)
    near = "" if area is None else f"{round(100 * area)}%"
    pct = f"{round(100 * float(probability))}%"
    parts: list[str] = []
    if lang == "zh":
        hits = "、".join(literal) if literal else "无（按学习到的主题判断）"
        parts.append("命中关键词：" + hits)
        if learned:
            parts.append("学习到的词：" + "、".join(learned))
        if near:
            parts.append(f"与站内主题文章的接近度 {near}")
        line = f"相关概率 {pct}"
        if isinstance(threshold, int | float):
            line += f"（推送阈值 {round(100 * float(threshold))}%）"
        if kind:
            line += f"，{kind}"
        parts.append(line)
        if n:
            parts.append(f"模型已参考您的 {n} 条反馈")
        return "；".join(parts)
    parts.append("Matched: " + (", ".join(literal) if literal else "none (judged by the topic)"))
    if learned:
        parts.append("learned: " + ", ".join(learned))
    if near:
        parts.append(f"{near} as close to the topic's pages on the site")
    line = f"probability {pct}"
    if isinstance(threshold, int | float):
        line += f" (push at {round(100 * float(threshold))}%)"
    if kind:
        line += f", {kind}"
    parts.append(line)
    if n:
        parts.append(f"shaped by {n} of your verdict{'s' if n != 1 else ''}")
    return "; ".join(parts)
