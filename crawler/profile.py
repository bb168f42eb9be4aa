"""A concern's topic as a weighted term profile, with pseudo-relevance feedback.

A user types a few keywords (``足球``). The profile expands them into weighted terms:

* **keywords** — weight 1;
* **synonyms** the user gave — weight ``synonym_weight`` (1.0: the user says they are the same);
* **exclude** words — a page whose title / meta keywords / description contains one is not
  relevant at all (the scorers check this);
* **learned** terms — found during the crawl on pages that match the user's own terms strongly
  (jieba TF-IDF keywords of the page plus its title words: seed 002's "topic term dictionary",
  seed 000's topic texts). A user who types only 足球 then also reaches pages about 中超 or 国足
  that never say 足球.

Guarding against topic drift (each rule is a parameter):

* learned weights are at most ``learn_max_weight`` (0.5), always below the user's keywords;
* a term is learned only when ``learn_min_support`` (3) strong pages support it, and when it is
  specific to them: P(term | strong) ≥ ``learn_min_lift`` (2) × P(term | any page), so site
  chrome such as a site name, present on every page, is never learned; the weight grows with
  that lift, up to ``learn_max_weight``;
* at most ``learn_max_terms`` (20) terms are learned, best supported first;
* a "strong" page is one that is about the user's *own* terms (keywords or synonyms): one of
  them is in its title, meta keywords or description, or occurs ``learn_body_hits`` (3) times
  in its text; it must not be excluded, and its relevance must be > 0 (a float score must be
  ≥ ``learn_min_score``). Real titles are long (a 12-token title with one keyword has kp sim
  ≈ 0.1), so the kp threshold itself is not required. A page that matched only through
  learned terms never teaches anything.

Learned terms are re-derived after every observed page, so a term that stops being specific
(as more pages are seen) is dropped again.
"""

from __future__ import annotations

import logging
import math
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from crawler import text as textmod
from crawler.types import Page

logger = logging.getLogger(__name__)

__all__ = ["TopicProfile", "split_terms"]

_SPLIT = re.compile(r"[,，、;；|\n\t]+")

_DEFAULTS: dict[str, float] = {
    "synonym_weight": 1.0,
    "learn": 1.0,
    "learn_min_support": 3,
    "learn_max_terms": 20,
    "learn_max_weight": 0.5,
    "learn_min_precision": 0.0,
    "learn_min_lift": 2.0,
    "learn_min_score": 0.75,
    "learn_body_hits": 3,
    "learn_text_chars": 4000,
    "learn_max_vocab": 50_000,
}


def split_terms(value: str | Iterable[str]) -> list[str]:
    """Split user input on ASCII / full-width commas, 、 and semicolons; normalize; dedupe.

    Spaces are *not* separators, so English phrases such as ``world cup`` survive.
    """
    items = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for item in items:
        for part in _SPLIT.split(textmod.normalize(item)):
            term = " ".join(part.split())
            if term and term not in out:
                out.append(term)
    return out


@dataclass
class TopicProfile:
    """Weighted topic terms plus the statistics that drive learning."""

    keywords: list[str]
    synonyms: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    """Example texts for the vector-space scorer (docs/algorithms.md §4.3); optional."""
    learned: dict[str, float] = field(default_factory=dict)
    params: dict[str, float] = field(default_factory=dict)
    n_pages: int = 0
    n_strong: int = 0
    df_all: dict[str, int] = field(default_factory=dict)
    df_strong: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.params = {**_DEFAULTS, **self.params}
        self._index: _Index | None = None
        self._user_index: _Index | None = None
        self._supported_terms: set[str] = set()
        self._supported_of: tuple[dict[str, int], float] | None = None
        self._term_memo: tuple[tuple[str, ...], dict[str, bool]] = ((), {})
        """(the user's terms, token → may it be a topic term), for ``_terms_of``."""
        self._words = textmod.Words(())

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_keywords(
        cls,
        keywords: str | Iterable[str],
        synonyms: str | Iterable[str] = (),
        exclude: str | Iterable[str] = (),
        *,
        examples: Sequence[str] = (),
        params: dict[str, float] | None = None,
    ) -> TopicProfile:
        """Build a profile from user input (strings are split on ``,，、;``)."""
        kws = split_terms(keywords)
        syns = [s for s in split_terms(synonyms) if s not in kws]
        excl = [e for e in split_terms(exclude) if e not in kws and e not in syns]
        return cls(kws, syns, excl, list(examples), params=dict(params or {}))

    @classmethod
    def merged(cls, profiles: Iterable[TopicProfile]) -> TopicProfile:
        """One profile for a crawl that serves several concerns at once.

        Keywords and synonyms are the union; a word is excluded only if *every* concern excludes
        it (otherwise one concern's exclusion would hide pages from another); learned terms keep
        their highest weight.
        """
        items = list(profiles)
        if not items:
            raise ValueError("merged() needs at least one profile")
        kws: list[str] = []
        syns: list[str] = []
        for p in items:
            kws += [k for k in p.keywords if k not in kws]
        for p in items:
            syns += [s for s in p.synonyms if s not in kws and s not in syns]
        excl = [e for e in items[0].exclude if all(e in p.exclude for p in items[1:])]
        learned: dict[str, float] = {}
        for p in items:
            for term, w in p.learned.items():
                if term not in kws and term not in syns:
                    learned[term] = max(w, learned.get(term, 0.0))
        examples = [e for p in items for e in p.examples]
        return cls(kws, syns, excl, examples, learned=learned, params=dict(items[0].params))

    # -- terms ------------------------------------------------------------------------------
    @property
    def user_terms(self) -> list[str]:
        """The user's own terms: keywords and synonyms."""
        return [*self.keywords, *self.synonyms]

    def terms(self) -> dict[str, float]:
        """Every profile term with its weight (user terms win over learned ones)."""
        out = dict(self.learned)
        for s in self.synonyms:
            out[s] = float(self.params["synonym_weight"])
        for k in self.keywords:
            out[k] = 1.0
        return out

    @property
    def words(self) -> textmod.Words:
        """The user's own words (keywords, synonyms, exclude words), with which this concern's
        texts are cut (``crawler.text.Words``)."""
        terms = (*self.keywords, *self.synonyms, *self.exclude)
        if self._words.given != terms:
            self._words = textmod.Words(terms)
        return self._words

    def is_learned(self, term: str) -> bool:
        return term in self.learned and term not in self.keywords and term not in self.synonyms

    def match(self, tokens: Sequence[str]) -> list[str]:
        """Profile terms found in a token sequence, one entry per occurrence (see ``_Index``)."""
        return self._term_index().match(tokens)

    def _term_index(self) -> _Index:
        if self._index is None:
            self._index = _Index(self.terms())
        return self._index

    def match_user(self, tokens: Sequence[str]) -> list[str]:
        """Like ``match`` but only the user's own keywords and synonyms."""
        if self._user_index is None:
            self._user_index = _Index({t: 1.0 for t in self.user_terms})
        return self._user_index.match(tokens)

    def excluded_in(self, tokens: Sequence[str]) -> list[str]:
        """Exclude words present in the tokens."""
        if not self.exclude:
            return []
        return sorted(set(_Index({e: 1.0 for e in self.exclude}).match(tokens)))

    def weight(self, term: str) -> float:
        """A term's weight (0 if it is not in the profile)."""
        return self._term_index().weights.get(term, 0.0)

    # -- learning ---------------------------------------------------------------------------
    def learn(self, page: Page, score: Any) -> list[str]:
        """Observe a fetched page and its relevance; return terms newly learned because of it.

        ``score`` is a ``Relevance`` (it must be > 0) or a float (≥ ``learn_min_score``). Every
        page feeds the background statistics; only strong pages (see the module doc) feed the
        topic statistics.
        """
        if not self.params["learn"]:
            return []
        if isinstance(score, int | float):
            strong = float(score) >= self.params["learn_min_score"]
        else:
            strong = score.score > 0
        head = " ".join((page.title, page.meta_keywords, page.description))
        words = self.words
        head_tokens = textmod.tokenize(head, words)
        if strong and self.excluded_in(head_tokens):
            strong = False
        if strong and not self.match_user(head_tokens):
            body = textmod.normalize(page.text)
            hits = sum(body.count(term) for term in self.user_terms)
            strong = hits >= self.params["learn_body_hits"]
        chars = int(self.params["learn_text_chars"])
        tokens = self._terms_of(textmod.tokenize(f"{head} {page.text[:chars]}", words))
        candidates = self._candidates(page) if strong else set()
        tokens |= candidates
        self.n_pages += 1
        for term in tokens:
            self.df_all[term] = self.df_all.get(term, 0) + 1
        if strong:
            self.n_strong += 1
            supported = self._supported()
            least = self.params["learn_min_support"]
            for term in candidates | self._terms_of(head_tokens):
                support = self.df_strong[term] = self.df_strong.get(term, 0) + 1
                if support >= least:
                    supported.add(term)
        if len(self.df_all) > self.params["learn_max_vocab"]:
            self.df_all = {t: n for t, n in self.df_all.items() if n > 1 or t in self.df_strong}
        before = set(self.learned)
        self._relearn()
        new = [t for t in self.learned if t not in before]
        if new:
            logger.debug("learned topic terms %s", new)
        return new

    def _terms_of(self, tokens: Iterable[str]) -> set[str]:
        """Possible topic terms among tokens: two characters or more, not stop words, not the
        user's own terms (nor words containing or contained in them)."""
        user = (*self.user_terms, *self.exclude)
        if self._term_memo[0] != user:  # the user's terms changed: forget
            self._term_memo = (user, {})
        memo = self._term_memo[1]
        out = set()
        for t in tokens:
            ok = memo.get(t)
            if ok is None:
                ok = (
                    len(t) >= 2
                    and not textmod.is_stopword(t)
                    and not any(t in u or u in t for u in user)
                )
                if len(memo) >= _MEMO_MAX:
                    memo.clear()
                memo[t] = ok
            if ok:
                out.add(t)
        return out

    def _candidates(self, page: Page) -> set[str]:
        """A strong page's characteristic terms: jieba TF-IDF over title (twice), meta
        keywords, description and the start of the text."""
        chars = int(self.params["learn_text_chars"])
        body = " ".join((page.title, page.title, page.meta_keywords, page.description))
        body += " " + page.text[:chars]
        keywords = textmod.extract_keywords(body, topk=20, words=self.words)
        return self._terms_of(t for t, _ in keywords)

    def _relearn(self) -> None:
        """Pick the learned terms: supported by strong pages and specific to them.

        lift = P(term | strong page) / P(term | any page). Site chrome has lift ≈ 1; a topical
        term such as 中超 is frequent on strong pages and rare elsewhere. (P(strong | term) is
        not required to be high: the other pages with 中超 are exactly the on-topic pages that
        never say the keyword.) Weight = learn_max_weight · (1 − 1/lift).
        """
        p = self.params
        if self.n_strong == 0:
            if self.learned:
                self._set_learned({})
            return
        scored: list[tuple[float, str, float]] = []
        df_strong, df_all = self.df_strong, self.df_all
        n_strong, n_pages = self.n_strong, max(1, self.n_pages)
        min_lift, min_precision = p["learn_min_lift"], p["learn_min_precision"]
        log = math.log
        for term in self._supported():
            support = df_strong[term]
            seen = df_all.get(term, support)
            if seen < support:  # noqa: PLR1730 (a call to max per term costs more)
                seen = support
            lift = (support / n_strong) / (seen / n_pages)
            if lift < min_lift or support / seen < min_precision:
                continue
            scored.append((support * log(lift), term, lift))
        scored.sort(key=lambda item: (-item[0], item[1]))
        top = scored[: int(p["learn_max_terms"])]
        weight = p["learn_max_weight"]
        self._set_learned({t: round(weight * (1 - 1 / lift), 4) for _, t, lift in top})

    def _supported(self) -> set[str]:
        """The terms of ``df_strong`` with at least ``learn_min_support`` strong pages (the only
        candidates of ``_relearn``), kept up to date by ``learn`` instead of scanning
        ``df_strong`` after every page; rebuilt when ``df_strong`` or the limit is replaced."""
        least = self.params["learn_min_support"]
        source = self._supported_of
        if source is None or source[0] is not self.df_strong or source[1] != least:
            self._supported_terms = {t for t, n in self.df_strong.items() if n >= least}
            self._supported_of = (self.df_strong, least)
        return self._supported_terms

    def _set_learned(self, learned: dict[str, float]) -> None:
        if learned != self.learned:
            self.learned = learned
            self._index = None

    # -- persistence ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot, including the learning statistics (for crawl checkpoints)."""
        return {
            "keywords": list(self.keywords),
            "synonyms": list(self.synonyms),
            "exclude": list(self.exclude),
            "examples": list(self.examples),
            "learned": dict(self.learned),
            "params": dict(self.params),
            "n_pages": self.n_pages,
            "n_strong": self.n_strong,
            "df_all": dict(self.df_all),
            "df_strong": dict(self.df_strong),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TopicProfile:
        return cls(
            list(data["keywords"]),
            list(data.get("synonyms", ())),
            list(data.get("exclude", ())),
            list(data.get("examples", ())),
            learned={str(k): float(v) for k, v in data.get("learned", {}).items()},
            params=dict(data.get("params", {})),
            n_pages=int(data.get("n_pages", 0)),
            n_strong=int(data.get("n_strong", 0)),
            df_all={str(k): int(v) for k, v in data.get("df_all", {}).items()},
            df_strong={str(k): int(v) for k, v in data.get("df_strong", {}).items()},
        )


_UNSEEN = object()
_MEMO_MAX = 50_000


class _Index:
    """Matches weighted terms against jieba tokens.

    A Chinese term (one with a Han character and no space) matches wherever its characters
    occur in the tokens read one after the other: inside a longer word that jieba keeps whole
    (中超联赛 is about 中超), across words jieba cuts it into (国足 may come out as 国 / 足, C罗
    as c / 罗), and across a misaligned cut (国足队 → 国 / 足队). No term is ever added to the
    segmenter's dictionary: that dictionary is shared by every concern of the process, and
    one concern's words would change how another's pages are cut. Other terms match a token
    that is the term, and terms that segment into several tokens (English phrases such as
    ``world cup``) match as a token sequence. Each token counts for at most one term, the
    heaviest that starts first.
    """

    def __init__(self, weights: dict[str, float]) -> None:
        self.weights = weights
        self.single: dict[str, str] = {}
        self.phrases: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        self._memo: dict[str, object] = {}
        han: list[str] = []
        for term in sorted(weights, key=lambda t: -weights[t]):
            if textmod.has_han(term) and " " not in term:
                han.append(term)
                continue
            toks = textmod.tokenize(term)
            if len(toks) == 1:
                self.single.setdefault(toks[0], term)
            elif toks:
                self.phrases.setdefault(toks[0], []).append((tuple(toks), term))
        self._han_of = {textmod.normalize(t): t for t in reversed(han)}
        """Each Chinese term as the tokens spell it (normalized) → the term."""
        heaviest = sorted(self._han_of, key=lambda t: (-weights[self._han_of[t]], -len(t)))
        alternatives = "|".join(map(re.escape, heaviest))
        # a lookahead finds an occurrence at every position, overlapping ones included
        self._han = re.compile(f"(?=({alternatives}))") if han else None

    def match(self, tokens: Sequence[str]) -> list[str]:
        claimed: dict[int, tuple[int, list[str]]] = {}
        if self._han is not None and tokens:
            claimed = self._han_matches(tokens)
        if not self.phrases and not claimed:  # token by token; each token's term remembered
            memo = self._memo
            out: list[str] = []
            for tok in tokens:
                term = memo.get(tok, _UNSEEN)
                if term is _UNSEEN:
                    term = self.single.get(tok)
                    if len(memo) >= _MEMO_MAX:
                        memo.clear()
                    memo[tok] = term
                if term is not None:
                    out.append(term)  # type: ignore[arg-type]
            return out
        out = []
        i, n = 0, len(tokens)
        while i < n:
            han = claimed.get(i)
            if han is not None:
                out += han[1]
                i += han[0]
                continue
            tok = tokens[i]
            phrase = next(
                (
                    (seq, term)
                    for seq, term in self.phrases.get(tok, ())
                    if tuple(tokens[i : i + len(seq)]) == seq
                ),
                None,
            )
            if phrase is not None:
                out.append(phrase[1])
                i += len(phrase[0])
                continue
            term = self.single.get(tok)
            if term is not None:
                out.append(term)
            i += 1
        return out

    def _han_matches(self, tokens: Sequence[str]) -> dict[int, tuple[int, list[str]]]:
        """The Chinese terms in the tokens read as one text (``_occurrences``): token index →
        (how many tokens the occurrences from there span, their terms)."""
        out: dict[int, tuple[int, list[str]]] = {}
        group = past = -1  # where the last occurrence's tokens start, and past their end
        for i, j, term in self._occurrences(tokens):
            if i < past:  # in a token the last occurrence holds too
                past = max(past, j + 1)
                out[group] = (past - group, [*out[group][1], term])
            else:
                group, past = i, j + 1
                out[i] = (past - i, [term])
        return out

    def _occurrences(self, tokens: Sequence[str]) -> list[tuple[int, int, str]]:
        """(first token, last token, term) of each Chinese term found in the tokens read as
        one text, from left to right, never two on the same characters.

        An occurrence that starts or ends where a token does comes first (国足 in 国 / 足队,
        足协 in 中国足协); one inside a word jieba keeps whole next, the heaviest and then the
        one nearest the word's end (足球 in 中国足球队: Chinese compounds end in what they
        name); one that crosses a cut without either (国足 in 中国 / 足球) does not count, nor
        one across a break in the text (``crawler.text.Tokens``: 中超 in NBA中，超巨)."""
        assert self._han is not None
        joined = "".join(tokens)
        found = [(m.start(), m.group(1)) for m in self._han.finditer(joined)]
        if not found:
            return []
        starts: list[int] = []
        at = 0
        for tok in tokens:
            starts.append(at)
            at += len(tok)
        starts.append(at)
        aligned: list[tuple[int, int, int, int, str]] = []
        inside: list[tuple[int, int, int, int, str]] = []
        broken = tokens.broken if isinstance(tokens, textmod.Tokens) and tokens.breaks else None
        for begin, spelled in found:
            end = begin + len(spelled)
            i = bisect_right(starts, begin) - 1
            j = bisect_right(starts, end - 1) - 1
            if broken is not None and i != j and broken(i, j):
                continue  # across punctuation or a space: no word there
            occurrence = (begin, end, i, j, self._han_of[spelled])
            if starts[i] == begin or starts[j + 1] == end:
                aligned.append(occurrence)
            elif i == j:
                inside.append(occurrence)
        inside.sort(key=lambda o: (-self.weights[o[4]], -o[1]))
        held: set[int] = set()
        kept = []
        for begin, end, i, j, term in (*aligned, *inside):
            if held.isdisjoint(range(begin, end)):
                held.update(range(begin, end))
                kept.append((begin, i, j, term))
        return [(i, j, term) for _, i, j, term in sorted(kept)]
