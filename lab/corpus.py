"""The labelled documents the lab web is built from.

Three public corpora (see ../shared/data/README.md) are read into one list of :class:`Doc` with a
unified category vocabulary, so that a Toutiao ``news_sports`` headline, a THUCNews label ``7``
title and a cnews ``体育`` article all become category ``sports``.

The English web is built from the BBC News set (``bbc.en.tsv``), whose five labels map onto the
same vocabulary (``sport`` → ``sports``, ``business`` → ``finance``, ``entertainment`` → ``ent``),
so that the coarse topic "sports" / 体育 is one category in both languages.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

CATEGORY_NAMES: dict[str, str] = {
    "sports": "体育",
    "ent": "娱乐",
    "finance": "财经",
    "tech": "科技",
    "game": "游戏",
    "edu": "教育",
    "house": "房产",
    "auto": "汽车",
    "culture": "文化",
    "mil": "军事",
    "world": "国际",
    "travel": "旅游",
    "agri": "三农",
    "story": "故事",
    "society": "社会",
    "politics": "时政",
    "home": "家居",
    "fashion": "时尚",
}
"""Unified category → the channel name a Chinese portal shows in its navigation bar."""

EN_CATEGORY_NAMES: dict[str, str] = {
    "sports": "Sport",
    "finance": "Business",
    "ent": "Entertainment",
    "politics": "Politics",
    "tech": "Technology",
}
"""Unified category → the section name an English portal shows in its navigation bar."""

LANGUAGES = ("zh", "en")
"""The lab webs: Chinese (Toutiao, THUCNews, cnews) and English (BBC)."""

_TOUTIAO = {
    "news_sports": "sports",
    "news_entertainment": "ent",
    "news_finance": "finance",
    "stock": "finance",
    "news_tech": "tech",
    "news_game": "game",
    "news_edu": "edu",
    "news_house": "house",
    "news_car": "auto",
    "news_culture": "culture",
    "news_military": "mil",
    "news_world": "world",
    "news_travel": "travel",
    "news_agriculture": "agri",
    "news_story": "story",
}
_THUCNEWS = [
    "finance",
    "house",
    "finance",
    "edu",
    "tech",
    "society",
    "politics",
    "sports",
    "game",
    "ent",
]
_BBC = {
    "sport": "sports",
    "business": "finance",
    "entertainment": "ent",
    "politics": "politics",
    "tech": "tech",
}
_CNEWS = {
    "体育": "sports",
    "财经": "finance",
    "房产": "house",
    "家居": "home",
    "教育": "edu",
    "科技": "tech",
    "时尚": "fashion",
    "时政": "politics",
    "游戏": "game",
    "娱乐": "ent",
}


@dataclass(frozen=True, slots=True)
class Doc:
    """One labelled document: a headline (maybe with keywords) or a full article."""

    source: str
    """Stable id inside the corpora, e.g. ``toutiao:6553579468705759758`` or ``cnews:17``."""
    category: str
    """Unified category (a key of :data:`CATEGORY_NAMES`)."""
    title: str
    keywords: tuple[str, ...] = ()
    body: str = ""
    """The real article text (cnews, BBC); empty for title-only sources."""
    lang: str = "zh"
    """The document's language: ``zh`` or ``en``."""


def _read_lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def load_toutiao(path: Path) -> list[Doc]:
    """``id_!_code_!_category_!_title_!_keywords`` (keywords comma-separated, often empty)."""
    docs = []
    for line in _read_lines(path):
        parts = line.split("_!_")
        if len(parts) < 4 or parts[2] not in _TOUTIAO or not parts[3].strip():
            continue
        keywords = tuple(
            k.strip() for k in (parts[4] if len(parts) > 4 else "").split(",") if k.strip()
        )
        docs.append(Doc(f"toutiao:{parts[0]}", _TOUTIAO[parts[2]], parts[3].strip(), keywords))
    return docs


def load_thucnews(path: Path) -> list[Doc]:
    """``title<TAB>label_id`` with label ids in thucnews_classes.txt order."""
    docs = []
    for number, line in enumerate(_read_lines(path)):
        title, _, label = line.rpartition("\t")
        if not title.strip() or not label.strip().isdigit() or int(label) >= len(_THUCNEWS):
            continue
        docs.append(Doc(f"thucnews:{number}", _THUCNEWS[int(label)], title.strip()))
    return docs


def _cnews_title(text: str) -> tuple[str, str]:
    """cnews rows are ``title + body`` run together; split at the first dateline-like marker."""
    for marker in (
        "新浪体育讯",
        "新浪娱乐讯",
        "新浪科技讯",
        "新浪财经讯",
        "新浪游戏讯",
        "新浪教育讯",
    ):
        at = text.find(marker)
        if 4 <= at <= 60:
            return text[:at].strip(), text[at:].strip()
    for stop in ("。", "，", " ", "\u3000"):
        at = text.find(stop, 8)
        if 8 <= at <= 40:
            return text[:at].strip(), text[at + 1 :].strip()
    return text[:24].strip(), text[24:].strip()


def load_cnews(path: Path) -> list[Doc]:
    """``category<TAB>text``: full Sina articles with their bodies."""
    docs = []
    for number, line in enumerate(_read_lines(path)):
        label, _, text = line.partition("\t")
        if label not in _CNEWS or not text.strip():
            continue
        title, body = _cnews_title(text.strip())
        docs.append(Doc(f"cnews:{number}", _CNEWS[label], title, (), body))
    return docs


def load_bbc(path: Path) -> list[Doc]:
    """``category<TAB>title<TAB>body``: full BBC News articles (2004-05), English."""
    docs = []
    for number, line in enumerate(_read_lines(path)):
        parts = line.split("\t")
        if len(parts) != 3 or parts[0] not in _BBC or not parts[1].strip():
            continue
        title, body = parts[1].strip(), parts[2].strip()
        docs.append(Doc(f"bbc:{number}", _BBC[parts[0]], title, (), body, "en"))
    return docs


def load_corpus(directory: Path, lang: str = "zh") -> list[Doc]:
    """Every document in ``lang`` of the corpora found in ``directory`` (missing files skipped)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    loaders: tuple[tuple[str, Callable[[Path], list[Doc]]], ...] = (
        (
            ("toutiao.dev.txt", load_toutiao),
            ("thucnews_titles.dev.txt", load_thucnews),
            ("cnews.dev.txt", load_cnews),
        )
        if lang == "zh"
        else (("bbc.en.tsv", load_bbc),)
    )
    docs: list[Doc] = []
    for name, loader in loaders:
        path = directory / name
        if path.is_file():
            docs.extend(loader(path))
        else:
            logger.warning("corpus file %s is missing", path)
    if not docs:
        raise FileNotFoundError(f"no corpus files in {directory}")
    return docs
