"""crawler.text: jieba segmentation, normalisation, user words, stop words, TF-IDF keywords."""

from __future__ import annotations

import json
import marshal
import pickle
import re
import subprocess
import sys
import warnings
from pathlib import Path

from crawler import text
from crawler.parse import decode_body, parse_html


def test_normalize_folds_full_width_and_case() -> None:
    assert text.normalize("ＮＢＡ　Ｆｉｎａｌｓ，足球！") == "nba finals,足球!"


def test_tokenize_chinese_and_english_without_punctuation() -> None:
    assert text.tokenize("梅西 Messi-World Cup：世界杯！") == [
        "梅西",
        "messi",
        "world",
        "cup",
        "世界杯",
    ]
    assert text.tokenize("ＮＢＡ总决赛") == ["nba", "总决赛"]
    assert text.tokenize("") == []


def test_a_concerns_words_stay_one_token_for_that_concern_only() -> None:
    import jieba

    words = text.Words(["蓝鲸杯", "ＡＢ联赛", "足球", "football"])
    assert words.kept == ("ab联赛", "蓝鲸杯")  # 足球 is a word already, football is English
    size = len(jieba.dt.FREQ)
    assert text.tokenize("蓝鲸杯开幕") == ["蓝鲸", "杯", "开幕"]
    assert text.tokenize("蓝鲸杯开幕", words) == ["蓝鲸杯", "开幕"]
    assert "ab联赛" in text.tokenize("AB联赛开幕", words)
    (top, _), *_ = text.extract_keywords("蓝鲸杯决赛，蓝鲸杯冠军", words=words)
    assert top == "蓝鲸杯"
    # the dictionary, and what any other concern's text is cut into, are as they were
    assert len(jieba.dt.FREQ) == size and "蓝鲸杯" not in jieba.dt.FREQ
    assert text.tokenize("蓝鲸杯开幕") == ["蓝鲸", "杯", "开幕"]
    assert "蓝鲸杯" not in [t for t, _ in text.extract_keywords("蓝鲸杯决赛，蓝鲸杯冠军")]
    assert not text.Words(["足球", "football", "world cup"])  # nothing to add: no cost
    assert text.tokenize("footballers", text.Words(["football"])) == ["footballers"]


_WITH_WORDS = """
import json, sys
import jieba
from crawler import text
words = sys.argv[1].split(",")
sentences = json.loads(sys.argv[2])
ours = [text.tokenize(s, text.Words(words)) for s in sentences]
text._load()
for word in words:
    jieba.add_word(word)
    jieba.suggest_freq(word, tune=True)
theirs = [[t for t in jieba.lcut(text.normalize(s)) if t.strip()] for s in sentences]
print(json.dumps([ours, theirs]))
"""


def test_a_concerns_words_cut_text_as_jieba_does_with_them_added() -> None:
    """Each sentence one run of Chinese holding a word (what ``Words`` re-cuts); jieba with the
    words added to its own dictionary, in a fresh interpreter, cuts it the same way."""
    sentences = [
        "北京国安主场击败申花队凭借角球机会制胜",
        "国足主帅宣布亚冠名单",
        "打好亚冠中超加3分",
        "中国足球的国足时代",
        "C罗梅开二度",
    ]
    words = "国安主场,申花队,角球机会,主场击败,国足,亚冠,中超,c罗"
    done = subprocess.run(
        [sys.executable, "-c", _WITH_WORDS, words, json.dumps(sentences)],
        capture_output=True,
        text=True,
        check=True,
    )
    ours, theirs = json.loads(done.stdout)
    assert ours == theirs
    assert ours[1][:2] == ["国足", "主帅"] and "c罗" in ours[4]


def test_tokens_know_where_the_text_broke() -> None:
    tokens = text.tokenize("NBA中，超巨 巨星 c罗 and the")
    assert tokens == ["nba", "中", "超巨", "巨星", "c", "罗", "and", "the"]
    # breaks before 超巨, 巨星, c (a space), and (after a Chinese token); none inside "c罗" and
    # none between two ASCII words
    assert tokens.breaks == (2, 3, 4, 6)
    assert tokens.broken(1, 2) and not tokens.broken(4, 5) and not tokens.broken(6, 7)
    # a remembered short text, and one cut with a concern's words, say the same
    assert text.tokenize("NBA中，超巨 巨星 c罗 and the").breaks == (2, 3, 4, 6)
    words = text.Words(["超巨"])
    assert text.tokenize("NBA中，超巨 巨星 c罗 and the", words).breaks == (2, 3, 4, 6)
    # what is made of the tokens keeps them apart: mapped, filtered, read with other texts
    assert tokens.map(str.upper).breaks == tokens.breaks
    kept = tokens.without({"超巨", "巨星"})
    assert kept == ["nba", "中", "c", "罗", "and", "the"] and kept.breaks == (2, 4)
    both = text.joined([text.tokenize("中国"), tokens, [], text.tokenize("足球")])
    assert both[:2] == ["中国", "nba"] and both.breaks == (1, 3, 4, 5, 7, 9)
    again = pickle.loads(pickle.dumps(tokens))  # kept pages are pickled with their tokens
    assert isinstance(again, text.Tokens) and again.breaks == tokens.breaks


def test_stop_words() -> None:
    assert text.is_stopword("的") and text.is_stopword("the") and text.is_stopword("2024")
    assert text.is_stopword("x")  # single Latin letters
    assert not text.is_stopword("足球") and not text.is_stopword("球")


def test_extract_keywords_drops_stop_words_and_numbers() -> None:
    words = text.extract_keywords(
        "中超联赛第五轮，北京国安2比1战胜上海申花。国安升至积分榜第二。", 5
    )
    terms = [w for w, _ in words]
    assert "国安" in terms or "北京国安" in terms
    assert all(len(t) >= 2 and not t.isdigit() for t in terms)
    assert all(weight > 0 for _, weight in words)
    assert text.extract_keywords("") == []


def _pages(shared_data: Path) -> list[str]:
    """Titles, texts, anchors and link contexts of the saved real pages."""
    texts = [
        "café naïve ① ㎏ ＮＢＡ总决赛 ...—— 3.5% C++ #tag a&b x_y 中超联赛第五轮，国安2比1胜申花。"
    ]
    for path in sorted((shared_data / "html").glob("*.html"))[:6]:
        decoded, _ = decode_body(path.read_bytes(), None)
        page = parse_html(decoded, "http://news.example.test/")
        texts += [page.title, page.description, page.text, page.text[:4000]]
        texts += [link.anchor for link in page.links[:150]]
        texts += [link.context for link in page.links[:150]]
    return texts


def test_tokenize_and_keywords_are_exactly_jiebas(shared_data: Path) -> None:
    # segmentation is remembered block by block and shared between readers; the result must
    # stay what jieba gives for the whole text, and the keywords what jieba.analyse gives
    with warnings.catch_warnings():  # jieba's regexes: invalid escape sequences
        warnings.simplefilter("ignore")
        import jieba
        import jieba.analyse

    word = re.compile(r"\w")
    texts = _pages(shared_data)
    for _ in range(2):  # the second pass is answered from what was remembered
        for value in texts:
            expected = [
                t for t in jieba.lcut(text.normalize(value)) if word.search(t) and not t.isspace()
            ]
            assert text.tokenize(value) == expected
    for value in texts:
        if len(value) < 40:
            continue
        tags = jieba.analyse.extract_tags(text.normalize(value), topK=10, withWeight=True)
        expected_tags = [
            (t, w)
            for t, w in tags
            if len(t) >= 2 and not text.is_stopword(t) and word.search(t)
            if not t.replace(".", "").isdigit()
        ][:5]
        assert text.extract_keywords(value, topk=5) == expected_tags


def test_one_concerns_words_leave_the_remembered_segmentation_alone() -> None:
    sentence = "银狐杯决赛今晚开打，银狐杯冠军将获得奖金。" * 3
    before = text.tokenize(sentence)
    assert "银狐杯" not in before
    assert text.tokenize(sentence, text.Words(["银狐杯"])).count("银狐杯") == 6
    assert text.tokenize(sentence) == before
    # a short text is remembered once cut: cut with the words first, it is still cut
    # without them for everyone else
    assert text.tokenize("银狐杯决赛", text.Words(["银狐杯"])) == ["银狐杯", "决赛"]
    assert "银狐杯" not in text.tokenize("银狐杯决赛")


def test_idf_cache_gives_the_table_and_refuses_a_planted_file(tmp_path: Path) -> None:
    import jieba

    source = Path(jieba.__file__).parent / "analyse" / "idf.txt"
    parsed = text._read_idf(source)
    assert text._cached_idf(source, tmp_path) == parsed  # parsed, then written
    (cache,) = tmp_path.glob("timelypush.idf.*")
    assert cache.stat().st_mode & 0o077 == 0
    assert text._cached_idf(source, tmp_path) == parsed  # read back
    # a file others may write is not read (whatever it holds), and is replaced by ours
    cache.write_bytes(marshal.dumps(({"足球": 0.0}, 1.0)))
    cache.chmod(0o666)
    assert text._cached_idf(source, tmp_path) == parsed
    assert cache.stat().st_mode & 0o077 == 0
    # a damaged file of ours is parsed again
    cache.write_bytes(b"\x00broken")
    assert text._cached_idf(source, tmp_path) == parsed


def test_a_word_common_in_general_chinese_weighs_less_than_a_topic_word() -> None:
    assert text.background_weight("中国") < text.background_weight("联赛") < 1.0
    assert text.background_weight("恒大中超") == 1.0  # not in the table: a new name
    assert text.background_weight("football") == 1.0  # outside the Chinese table


_ENGLISH = """
import json
import jieba
from crawler import text
text._load()  # the dictionary itself, to compare with jieba.lcut
sentence = (
    "Manchester United's 3-1 win: the footballer scored twice in 2005 at Old Trafford; "
    "U.S. shares rose 4.5% and C++ coders at AT&T cheered_loudly"
)
runs = []
for words in ([], ["football"], ["man", "3g"]):
    ours = text.tokenize(sentence, text.Words(words))
    runs.append([ours, jieba.lcut(text.normalize(sentence))])
print(json.dumps(runs))
"""


def test_english_words_segment_exactly_as_jieba_whatever_a_concerns_words() -> None:
    """ASCII runs (words, numbers, "3-1", "u.s.", "4.5%") skip jieba unless a dictionary word
    lies inside one (its own "c++"): then jieba's cut is taken, and either way the tokens are
    exactly jieba's. A concern's English words change nothing: "footballer" stays whole for a
    concern about football (the dictionary, with "football" added, would cut it)."""
    done = subprocess.run(
        [sys.executable, "-c", _ENGLISH], capture_output=True, text=True, check=True
    )
    word = re.compile(r"\w")
    runs = json.loads(done.stdout)
    for tokens, jieba_tokens in runs:
        assert tokens == [t for t in jieba_tokens if word.search(t) and not t.isspace()]
    assert "manchester" in runs[0][0] and "footballer" in runs[0][0] and "c++" in runs[0][0]
    assert runs[1][0] == runs[2][0] == runs[0][0]


def test_english_text_never_loads_the_table_that_weighs_chinese_words() -> None:
    """``load(idf=False)`` leaves the IDF table unloaded, and weighing English words does not
    load it; the first Chinese word does (fresh interpreter)."""
    probe = (
        "from crawler import text\n"
        "text.load(idf=False)\n"
        "print(text._idf is None)\n"
        "w = text.background_weight\n"
        "print(w('football'), w('café'), text._idf is None)\n"
        "print(text.background_weight('中国') < 1, text._idf is None)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["True", "1.0 1.0 True", "True False"], done.stderr


def test_every_word_of_the_idf_table_has_a_han_character() -> None:
    """What lets ``background_weight`` answer 1 for other words without loading the table."""
    idf, _median = text.idf_table()
    assert len(idf) > 200_000
    assert all(re.search(r"[\u4e00-\u9fff]", word) for word in idf if not word.isascii())


def test_jiebas_patterns_are_the_ones_copied() -> None:
    """Runs, the text between them and the parts of an ASCII run are found without importing
    jieba, by copies of its own patterns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import jieba
        import jieba.finalseg

    for ours, theirs in (
        (text._RUNS, jieba.re_han_default),
        (text._GAP, jieba.re_skip_default),
        (text._ASCII_PARTS, jieba.finalseg.re_skip),
    ):
        assert (ours.pattern, ours.flags) == (theirs.pattern, theirs.flags)


_WITHOUT_DICTIONARY = """
import json, random, sys
from crawler import text
if sys.argv[1] == "dictionary":
    text._load()
else:
    text.load(idf=False)
pieces = ["foot", "ball", "er", "s", "c++", "at&t", "c#", "3g", "-", ".", "_", "%", "4.5",
          "2005", "man", "chester", " ", ", ", "é", "—", "“", "…", "\\n", "\\r\\n", "\\t"]
rng = random.Random(5)
texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
runs = [[text._raw_tokens(text.normalize(t)) for t in texts]]
print(json.dumps([text._jieba is not None, runs]))
"""


def test_english_is_cut_as_by_the_dictionary_without_loading_it() -> None:
    """With the table of the dictionary's ASCII entries saved (by any earlier load), ASCII
    text and the text between runs are cut exactly as with the whole dictionary loaded, and
    the dictionary is never loaded (fresh interpreters)."""

    def run(mode: str) -> list[object]:
        done = subprocess.run(
            [sys.executable, "-c", _WITHOUT_DICTIONARY, mode],
            capture_output=True,
            text=True,
            check=True,
        )
        return list(json.loads(done.stdout))

    loaded, with_dictionary = run("dictionary")  # also saves the table
    assert loaded
    loaded, without = run("table")
    assert not loaded
    assert without == with_dictionary


def test_only_chinese_text_loads_the_dictionary() -> None:
    """An English concern's words (an accented one too) need no dictionary; the first Chinese
    text loads it."""
    probe = (
        "from crawler import text\n"
        "text.load(idf=False)\n"
        "words = text.Words(['football', 'café', 'world cup'])\n"
        "before = text._jieba is None\n"
        "text.tokenize('footballers and football at the café', words)\n"
        "english = text._jieba is None\n"
        "tokens = text.tokenize('中超足球', words)\n"
        "print(before, english, text._jieba is not None, tokens[:1])\n"
    )
    subprocess.run(  # the table of ASCII entries exists once the dictionary was loaded
        [sys.executable, "-c", "from crawler import text; text._load()"], check=True
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "True", "['中超']"], done.stderr
