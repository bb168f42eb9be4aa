"""Chinese + English text processing: the one place that imports jieba.

* ``normalize`` folds full-width forms to half-width (NFKC) and lowercases, so ``ＮＢＡ`` and
  ``nba`` are the same term.
* ``tokenize`` segments with jieba (precise mode, HMM on; ``enable_paddle`` is never used).
  English and digits come out as whole words; punctuation and whitespace are dropped. Stop
  words are *kept* (callers that want them out use ``is_stopword``) so that token counts such
  as the title length S_t of the keyword-position formula are well defined.
* ``Words`` are one concern's own words (``中超``, ``国足``): ``tokenize(text, words)`` cuts
  the text as jieba would with them added to its dictionary, without adding them. jieba's
  dictionary is one per process, shared by every concern it serves: a word added for one
  concern would change how every other concern's pages are cut.
* ``extract_keywords`` is jieba's TF-IDF keyword extraction, used for pseudo-relevance feedback.

jieba is imported and its dictionary loaded lazily, once per process, on first use; text
without Chinese is cut exactly as with the dictionary by a tokenizer that holds only its ASCII
entries (``_ascii_jieba``), so an English crawl never loads it.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import marshal
import os
import re
import tempfile
import threading
import warnings
from bisect import bisect_right
from collections import ChainMap
from collections.abc import Callable, Container, Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from crawler.fold import fold

logger = logging.getLogger(__name__)

__all__ = [
    "STOPWORDS",
    "Tokens",
    "Words",
    "background_weight",
    "clear_cache",
    "extract_keywords",
    "idf_table",
    "is_stopword",
    "joined",
    "load",
    "normalize",
    "tokenize",
]

_STOPWORDS_TEXT = """
    的 了 和 与 及 或 在 是 为 有 也 都 就 而 及其 以及 对 从 把 被 让 向 到 由 于 之 其 此 这 那
    这个 那个 这些 那些 一个 一些 我 你 他 她 它 我们 你们 他们 她们 它们 自己 什么 怎么 如何 为什么
    吗 呢 吧 啊 呀 哦 嗯 着 过 给 将 又 还 并 但 但是 而且 如果 因为 所以 虽然 然而 因此 不过
    上 下 中 里 前 后 内 外 等 等等 个 们 不 没 没有 很 更 最 已 已经 要 会 能 可以 可能 应该
    被 所 该 本 每 各 另 则 即 若 乃 且 啦 么 之后 之前 以后 以前 以上 以下 目前 现在 今天
    首页 登录 注册 更多 返回 网站 导航 版权 版权所有 联系 关于 我们 新闻 图片 视频 评论 点击 查看
    a an the and or but if then else of to in on at by for with from as is are was were be
    been being it its this that these those he she they we you i me my our your their his her
    not no yes do does did done has have had will would can could should may might must shall
    so than too very just about into over under up down out more most other some such only own
    same all any both each few what which who whom whose when where why how there here also
    via per vs etc www http https com html htm php asp aspx jsp
    home login register more back news read click
    本文 此事 涉及 引发 网上 表示 认为 进行 通过 成为 获得 发现 宣布 消息 报道 记者 今年 去年
    相关 据悉 日前 近日 称 指出 介绍 透露 一位 一名 这一 这种 其中 之一 对此 方面 问题 情况
    时候 时间 工作 发展 已 被 但 却 都是 就是 还是 不是 如此 非常 一直 开始 继续 出现 来自
    哪 哪个 哪些 哪里 哪儿 哪位 哪家 怎样 怎么样 怎么办 为何 何时 何处 何以 多少 谁 是否 能否
    可否 有何 看待 啥 咋 这么 那么
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORDS_TEXT.split())
"""A small built-in Chinese + English stop-word list (function words and site chrome). The
words a question is asked with are function words in both languages (哪个, 怎样, 是否, 如何看待's
看待 as which, how, whether): on a site of question-style headlines they are common to every
topic, and learned from a fine topic's few literal pages they made 哪个 the second strongest
word of 足球 (docs/benchmarks.md, "A fifth set of crawls, how far a replay moves by itself,
and the words a question is asked with")."""

_WORD = re.compile(r"\w", re.UNICODE)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_lock = threading.Lock()
_jieba: Any = None
_ascii_words: list[str] = []
"""The dictionary's ASCII words of two characters or more (a handful, such as ``c++``): the
only words that can make jieba cut a run of ASCII letters, digits and ``+#&._%-`` other than by
its plain rule."""
_ascii_jieba: Any = None
"""Until the dictionary is needed: a jieba tokenizer that holds only the dictionary's ASCII
entries (55 of ~500,000 words and prefixes) and its total frequency. jieba cuts an ASCII run by
looking up the run's own substrings — ASCII all — and the total, so this tokenizer cuts every
ASCII run exactly as the whole dictionary does, for a fifth of the start-up and none of its
70 MB. A Chinese block loads the dictionary."""

_RUNS = re.compile("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)", re.U)
"""jieba's ``re_han_default``: the runs it segments; the text between them is cut by
``_gap_tokens`` (``tests/crawler/test_text.py`` checks the patterns are jieba's)."""
_GAP = re.compile("(\r\n|\\s)", re.U)
"""jieba's ``re_skip_default``: what it keeps whole between runs (whitespace, CR LF)."""
_ASCII_PARTS = re.compile(r"([a-zA-Z0-9]+(?:\.\d+)?%?)")
"""``jieba.finalseg.re_skip``: how jieba's HMM stage splits an ASCII run."""


def _import_jieba() -> Any:
    with warnings.catch_warnings():
        # jieba's regexes use invalid escape sequences (SyntaxWarning at compile)
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", ResourceWarning)  # jieba leaves idf.txt open
        import jieba

    jieba.setLogLevel(logging.WARNING)
    return jieba


def _load() -> Any:
    """Import jieba and load its dictionary once per process."""
    global _jieba
    if _jieba is None:
        with _lock:
            if _jieba is None:
                jieba = _import_jieba()
                jieba.initialize()
                freq = jieba.dt.FREQ  # ~500,000 words and prefixes: the ASCII ones first, in C
                ascii_freq = {w: freq[w] for w in filter(str.isascii, freq)}
                _save_ascii_table(ascii_freq, jieba.dt.total)
                _note_ascii_words(w for w, f in ascii_freq.items() if f)
                _jieba = jieba
    return _jieba


def _ascii_segmenter() -> Any:
    """What cuts an ASCII run: the dictionary once loaded, else the ASCII tokenizer (built
    from the table the first load saved; without that table, the dictionary is loaded)."""
    global _ascii_jieba
    if _jieba is not None:
        return _jieba
    if _ascii_jieba is None:
        with _lock:
            if _jieba is None and _ascii_jieba is None:
                table = _ascii_table()
                if table is not None:
                    tokenizer = _import_jieba().Tokenizer()
                    tokenizer.FREQ, tokenizer.total = table
                    tokenizer.initialized = True
                    _note_ascii_words(w for w, f in tokenizer.FREQ.items() if f)
                    _ascii_jieba = tokenizer
    return _jieba or _ascii_jieba or _load()


def _note_ascii_words(words: Iterable[str]) -> None:
    known = set(_ascii_words)
    for word in words:
        if len(word) > 1 and word.isascii() and word not in known:
            _ascii_words.append(word)
            known.add(word)


def _ascii_table_path() -> Path | None:
    """Where the ASCII entries of jieba's bundled dictionary are kept, named after the
    dictionary file's size and modification time (None: jieba is not installed)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        return None
    try:
        stat = (Path(spec.origin).parent / "dict.txt").stat()
    except OSError:
        return None
    name = f"timelypush.jieba-ascii.{stat.st_size}.{stat.st_mtime_ns}.marshal"
    return Path(tempfile.gettempdir()) / name


def _ascii_table() -> tuple[dict[str, int], int] | None:
    path = _ascii_table_path()
    data = _read_cache(path) if path is not None else None
    if not isinstance(data, tuple) or len(data) != 2:
        return None
    freq, total = data
    if not isinstance(freq, dict) or not isinstance(total, int) or total <= 0:
        return None
    return dict(freq), total


def _save_ascii_table(freq: dict[str, int], total: int) -> None:
    path = _ascii_table_path()
    if path is not None and not _own_private_file(path):
        _write_cache(path, (freq, int(total)))


def _read_cache(path: Path) -> object:
    """What a cache file of ours holds (None: no such file of ours, or unreadable). Only a
    file this user owns and nobody else may write is read; marshal builds data, it runs no
    code."""
    if not _own_private_file(path):
        return None
    try:
        return marshal.loads(path.read_bytes())  # noqa: S302
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _write_cache(path: Path, data: tuple[dict[str, Any], Any]) -> None:
    """Write a cache file whole, then rename it into place: a concurrent reader never sees
    half a file. A cache that cannot be written is only logged."""
    try:
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as out:
            out.write(marshal.dumps(data))
        os.replace(out.name, path)
    except OSError as exc:
        logger.debug("cache %s not written: %s", path.name, exc)


def load(*, idf: bool = True) -> None:
    """Load the dictionary, and the IDF table unless ``idf`` is false, now rather than when
    first needed (e.g. while another process starts). The judgment reads the IDF table only for
    words with a Han character (``background_weight``), so a default crawl of pages without
    them never needs its 40 MB; the term learner (``extract_keywords``) and the ``vsm`` scorer
    read it for any text. Without the IDF table, only what cuts ASCII text is made ready: the
    dictionary itself waits for the first Chinese word (``_ascii_jieba``)."""
    if idf:
        idf_table()
    else:
        _ascii_segmenter()


def normalize(text: str) -> str:
    """Fold full-width forms to half-width (NFKC) and lowercase (``crawler.fold``)."""
    return fold(text)


_SHORT = 80
"""Texts up to this length (anchors, titles: they repeat on every page of a site) are
segmented once and remembered; longer ones are not kept."""
_CACHE_MAX = 20_000
"""Short texts remembered per generation (two generations, as for blocks below)."""
_short: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
_short_old: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}

_BLOCKS_MAX = 40_000
"""Blocks (runs of CJK, letters and digits, or the text between them) remembered per
generation; two generations are kept, so a block seen in the last 40,000–80,000 stays."""
_blocks: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
_blocks_old: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}


class Words:
    """One concern's own words, for ``tokenize(text, words)``: a block of text that holds
    one of them is cut as jieba cuts it with the words added to its dictionary (``add_word``
    with the frequency ``suggest_freq(tune=True)`` gives: high enough that each is kept whole
    when said alone); every other block exactly as with the dictionary alone.

    Only words that are not already dictionary words cut whole count (``国足``, ``c罗``,
    ``中超``, which jieba's HMM may leave whole but its dictionary does not hold). ``足球``
    is a dictionary word and an English word is always whole: a concern whose words are all
    such is cut exactly as with no words, at no cost. The dictionary is never changed, so
    what one concern's words do to a text stays with that concern.
    """

    def __init__(self, terms: Iterable[str]) -> None:
        self.given = tuple(terms)
        """The terms as given (a profile rebuilds its ``Words`` when its terms change)."""
        self.terms: tuple[str, ...] = tuple(
            sorted(
                {
                    t
                    for t in (normalize(term).strip() for term in self.given)
                    if len(t) > 1 and " " not in t and has_han(t)
                }
            )
        )
        """The words asked for (``kept`` tells those that change anything)."""
        self._kept: tuple[str, ...] | None = None
        self._pattern: re.Pattern[str] | None = None
        self._tokenizer: Any = None
        self._cuts: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}

    @property
    def kept(self) -> tuple[str, ...]:
        """The words that are not dictionary words cut whole (the only ones that matter)."""
        if self._kept is None:
            freq = _load().dt.FREQ if self.terms else {}
            kept = tuple(t for t in self.terms if not freq.get(t) or len(_cut(t)[0]) > 1)
            if kept:
                longest = sorted(kept, key=len, reverse=True)
                self._pattern = re.compile("|".join(map(re.escape, longest)))
            self._kept = kept
        return self._kept

    def __bool__(self) -> bool:
        return bool(self.terms) and bool(self.kept)

    def find(self, norm: str) -> bool:
        """Does normalized text hold one of the words?"""
        return bool(self) and self._pattern is not None and self._pattern.search(norm) is not None

    def cut(self, block: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``_cut`` of one block with the words in the dictionary (remembered)."""
        if not self.find(block):
            return _cut(block)
        hit = self._cuts.get(block)
        if hit is None:
            hit = _with_words(tuple(self._segmenter().lcut(block)))
            if len(self._cuts) >= _BLOCKS_MAX:
                self._cuts.clear()
            self._cuts[block] = hit
        return hit

    def _segmenter(self) -> Any:
        """A jieba tokenizer that reads the dictionary through a layer of its own, which holds
        these words and their prefixes: the dictionary itself stays as it is."""
        if self._tokenizer is None:
            base = _load()
            with _lock:
                if self._tokenizer is None:
                    tokenizer = base.Tokenizer()
                    tokenizer.FREQ = ChainMap({}, base.dt.FREQ)
                    tokenizer.total = base.dt.total
                    tokenizer.initialized = True
                    for word in self.kept:
                        # freq=None: jieba picks a frequency that keeps the word whole
                        tokenizer.add_word(word)
                        tokenizer.suggest_freq(word, tune=True)
                    self._tokenizer = tokenizer
        return self._tokenizer


class Tokens(list[str]):
    """A text's word tokens, and where the text broke between two of them (``breaks``: each
    index ``k`` whose token follows punctuation or a space, or starts the next of several texts
    read together, rather than the token before it in one run of characters). The tokens read
    one after the other heal jieba's bad cuts (国 / 足队 holds 国足); a break is no bad cut:
    ``NBA中，超巨`` does not say 中超. Only the breaks next to a non-ASCII token are kept (an
    English text breaks at every word, and no Chinese term spans two ASCII tokens)."""

    __slots__ = ("breaks",)

    def __init__(self, tokens: Iterable[str] = (), breaks: tuple[int, ...] = ()) -> None:
        super().__init__(tokens)
        self.breaks = breaks

    def __reduce__(self) -> tuple[Any, ...]:
        return (Tokens, (list(self), self.breaks))

    def broken(self, first: int, last: int) -> bool:
        """Whether the text broke between token ``first`` and token ``last``."""
        at = bisect_right(self.breaks, first)
        return at < len(self.breaks) and self.breaks[at] <= last

    def map(self, f: Callable[[str], str]) -> Tokens:
        """Each token through ``f``, the breaks kept (``f`` keeps a token one token)."""
        return Tokens(map(f, self), self.breaks)

    def without(self, drop: Container[str]) -> Tokens:
        """The tokens not in ``drop``: two tokens that were apart are still apart."""
        kept: list[str] = []
        breaks: list[int] = []
        old = iter(self.breaks)
        next_break = next(old, -1)
        gap = False
        for i, tok in enumerate(self):
            if i == next_break:
                gap = True
                next_break = next(old, -1)
            if tok in drop:
                gap = True
                continue
            if gap and kept:
                breaks.append(len(kept))
            gap = False
            kept.append(tok)
        return Tokens(kept, tuple(breaks))


def joined(parts: Iterable[Sequence[str]]) -> Tokens:
    """Several texts' tokens read together, broken between one text and the next."""
    out = Tokens()
    breaks: list[int] = []
    for part in parts:
        if not part:
            continue
        if out:
            breaks.append(len(out))
        breaks.extend(len(out) + k for k in getattr(part, "breaks", ()))
        out.extend(part)
    out.breaks = tuple(breaks)
    return out


def tokenize(text: str, words: Words | None = None) -> Tokens:
    """Segment ``text`` into normalized word tokens (no punctuation, no whitespace), with
    where the text broke between them (``Tokens``); with a concern's ``words``, as if they
    were in the dictionary (see ``Words``)."""
    if not text:
        return Tokens()
    if words:
        norm = normalize(text)
        if words.find(norm):
            return _segment(norm, words.cut)
    global _short, _short_old
    if len(text) <= _SHORT:
        hit = _short.get(text)
        if hit is None:
            hit = _short_old.get(text)
            if hit is None:
                cut = _segment(normalize(text))
                hit = (tuple(cut), cut.breaks)
            if len(_short) >= _CACHE_MAX:
                _short_old, _short = _short, {}
            _short[text] = hit
        return Tokens(*hit)
    return _segment(normalize(text))


def _segment(
    norm: str, cut: Callable[[str], tuple[tuple[str, ...], tuple[str, ...]]] | None = None
) -> Tokens:
    out = Tokens()
    if cut is None and norm.isascii():
        # no break is kept between ASCII tokens; the usual case inline (a block seen lately:
        # English text is mostly such blocks, one per word); ``_cut`` does the rest
        for block in _split(norm):
            hit = _blocks.get(block)
            out.extend((hit or _cut(block))[1])
        return out
    blocks = _blocks if cut is None else {}
    cut = cut or _cut
    breaks: list[int] = []
    apart = False  # a break before the next block's tokens (not between two ASCII blocks)
    for block in _split(norm):
        toks = (blocks.get(block) or cut(block))[1]
        if toks:
            if block.isascii():
                if apart:
                    breaks.append(len(out))
                    apart = False
            elif out:
                breaks.append(len(out))
                apart = True
            else:
                apart = True
            out.extend(toks)
    out.breaks = tuple(breaks)
    return out


def _raw_tokens(norm: str, words: Words | None = None) -> list[str]:
    """jieba's own tokens of normalized text, punctuation and whitespace included."""
    cut = words.cut if words and words.find(norm) else _cut
    out: list[str] = []
    for block in _split(norm):
        out.extend(cut(block)[0])
    return out


def _split(norm: str) -> list[str]:
    """The blocks jieba segments independently of each other (``jieba.cut`` splits its input
    on the same pattern first), so cutting block by block gives exactly its tokens."""
    return [b for b in _RUNS.split(norm) if b]


def _cut(block: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(jieba's tokens, the word tokens among them) of one block, remembered: a page's text
    is read by the judgment, the term learner and the keyword extractor, and navigation and
    titles repeat on every page of a site."""
    global _blocks, _blocks_old
    hit = _blocks.get(block)
    if hit is None:
        hit = _blocks_old.get(block)
        if hit is None:
            raw: tuple[str, ...]
            if not _RUNS.fullmatch(block):
                raw = _gap_tokens(block)  # between runs: no dictionary involved
            elif block.isascii():
                segmenter = _ascii_segmenter()  # also makes ``_ascii_words`` complete
                if not any(w in block for w in _ascii_words):
                    # English words, numbers, "3-1", "u.s.": with no dictionary word inside,
                    # jieba's DAG takes it character by character and hands the whole run to
                    # its HMM segmenter, which splits it into runs of letters and digits (with
                    # a decimal part and a %) and single other characters; done here directly
                    # (2.5× faster on English text, cold)
                    raw = tuple(x for x in _ASCII_PARTS.split(block) if x)
                else:
                    raw = tuple(segmenter.lcut(block))
            else:
                raw = tuple((_jieba or _load()).lcut(block))
            hit = _with_words(raw)
        if len(_blocks) >= _BLOCKS_MAX:
            _blocks_old, _blocks = _blocks, {}
        _blocks[block] = hit
    return hit


def _with_words(raw: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(jieba's tokens, the word tokens among them: no punctuation, no whitespace)."""
    words = tuple(t for t in raw if _WORD.search(t) and not t.isspace())
    return raw, raw if words == raw else words


def _gap_tokens(block: str) -> tuple[str, ...]:
    """jieba's tokens of the text between two runs: each whitespace character (or CR LF)
    whole, every other character alone."""
    return tuple(t for x in _GAP.split(block) for t in ((x,) if _GAP.match(x) else x))


def clear_cache() -> None:
    """Forget every remembered segmentation (benchmarks that time segmentation use it)."""
    global _blocks, _blocks_old, _short, _short_old
    _short, _short_old = {}, {}
    _blocks, _blocks_old = {}, {}


def is_stopword(tok: str) -> bool:
    """True for function words, site chrome, single non-CJK characters and pure numbers."""
    if tok in STOPWORDS:
        return True
    if tok.isdigit():
        return True
    return len(tok) == 1 and not ("\u4e00" <= tok <= "\u9fff")


_TFIDF_STOPWORDS_TEXT = """the of is and to in that we for an are by be as on with can if from
    which you it this then at have all not one has or"""
_TFIDF_STOPWORDS = frozenset(_TFIDF_STOPWORDS_TEXT.split())
"""``jieba.analyse``'s own stop words for its TF-IDF (``KeywordExtractor.STOP_WORDS``)."""
_idf: tuple[dict[str, float], float] | None = None


def idf_table() -> tuple[dict[str, float], float]:
    """jieba's bundled IDF table (``jieba/analyse/idf.txt``) and its median, for unknown words.

    Read the way ``jieba.analyse`` reads it, without importing ``jieba.analyse``: that would
    also load the part-of-speech tagger's tables, seconds of start-up for nothing used here.
    """
    global _idf
    if _idf is None:
        jieba = _load()  # not under the lock: loading takes it
        with _lock:
            if _idf is None:
                path = Path(jieba.__file__).parent / "analyse" / "idf.txt"
                _idf = _cached_idf(path, Path(jieba.dt.tmp_dir or tempfile.gettempdir()))
    return _idf


def _read_idf(path: Path) -> tuple[dict[str, float], float]:
    freq: dict[str, float] = {}
    for line in path.read_bytes().decode("utf-8").splitlines():
        word, value = line.strip().split(" ")
        freq[word] = float(value)
    return freq, sorted(freq.values())[len(freq) // 2]


def _own_private_file(path: Path) -> bool:
    """True when ``path`` exists, belongs to this user and nobody else may write to it (a
    shared temporary directory may hold a file someone else planted)."""
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_uid == os.getuid() and not st.st_mode & 0o022


def _cached_idf(path: Path, cache_dir: Path) -> tuple[dict[str, float], float]:
    """The IDF table, from a cache file beside jieba's own dictionary cache when that file
    is of this very table (its size and modification time); parsing the text costs a few
    tenths of a second at every start, loading the cache a few hundredths."""
    stat = path.stat()
    cache = cache_dir / f"timelypush.idf.{stat.st_size}.{stat.st_mtime_ns}.marshal"
    data = _read_cache(cache)
    if isinstance(data, tuple) and len(data) == 2:
        freq, median = data
        if isinstance(freq, dict) and freq and isinstance(median, float):
            return freq, median
    table = _read_idf(path)
    _write_cache(cache, table)
    return table


def has_han(text: str) -> bool:
    """True when ``text`` has a Han character (U+4E00–U+9FFF), the script of the IDF table."""
    return not text.isascii() and _HAN.search(text) is not None


def in_dictionary(term: str) -> bool:
    """Whether ``term`` is a word of jieba's dictionary or its IDF table, or a start of one
    (中超 of 中超联赛), or has no Han character. The words jieba's HMM stage makes up from the
    characters around a name or phrase it does not know (难助, 索将, 虽造) are none of these;
    nor are many names (恒大)."""
    if not has_han(term):
        return True
    return term in idf_table()[0] or _load().dt.FREQ.get(term) is not None


@functools.lru_cache(maxsize=65536)
def background_weight(term: str) -> float:
    """How much a word can say about a text's topic by how rare it is in general use, in
    (0, 1]: a Chinese word's IDF in jieba's bundled table over the table's median, capped at 1
    (中国 0.25, 冠军 0.64, 联赛 0.76; words rarer than the median and words not in the table,
    such as new names, weigh 1). English and other words outside the table weigh 1: the
    English stop words are already left out by the callers, and a background table for English
    (word frequencies from ``wordfreq``) measured no better on the English lab webs."""
    if not has_han(term):  # every word of the table has a Han character
        return 1.0
    idf, median = idf_table()
    value = idf.get(term)
    return 1.0 if value is None else min(1.0, value / median)


def extract_keywords(
    text: str, topk: int = 20, words: Words | None = None
) -> list[tuple[str, float]]:
    """The ``topk`` most characteristic terms of ``text`` by jieba's TF-IDF, stop words removed.

    Computes what ``jieba.analyse.extract_tags(text, topK=2·topk, withWeight=True)`` returns,
    from the remembered segmentation (see ``tokenize``; with ``words``, cut as ``tokenize``
    cuts with them); single characters and numbers are then dropped: they make poor topic
    terms.
    """
    if not text:
        return []
    idf, median = idf_table()
    freq: dict[str, float] = {}
    for word in _raw_tokens(normalize(text), words):
        if len(word.strip()) < 2 or word.lower() in _TFIDF_STOPWORDS:
            continue
        freq[word] = freq.get(word, 0.0) + 1.0
    total = sum(freq.values())
    for word in freq:
        freq[word] *= idf.get(word, median) / total
    tags = sorted(freq.items(), key=itemgetter(1), reverse=True)[: topk * 2]
    out: list[tuple[str, float]] = []
    for tag, weight in tags:
        if len(tag) < 2 or is_stopword(tag) or not _WORD.search(tag):
            continue
        if tag.replace(".", "").isdigit():
            continue
        out.append((tag, float(weight)))
        if len(out) >= topk:
            break
    return out
