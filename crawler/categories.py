"""The broad subjects sites file their pages under, and the words that belong to each.

A user who follows "football" on a news site or a university's site gives a word its home page
never prints: its navigation says "Sport", "体育", "Sport and Exercise Science". A person picks
that branch first because football is a sport. ``broader(terms)`` gives the words that name the
subjects the user's terms belong to (football → sport, sports, 体育, 体坛), so that before the
crawl has judged anything a link labelled, or a URL named, with one of them can lead from a
home page (``crawler.judgment.Judge.link_probability``, ``crawler.steering.Steering``; the
crawl's steering only — a page in the sports section is not about football for that, and the
push decision never reads these words).

The table is general knowledge of how news portals, magazines, blogs and institutions name
their sections, in English and Chinese: a subject's *labels* are the words a navigation bar
or a URL names it with; its *members* are topics filed under it. A user's term belongs to a
subject when one of its members is the term or a word of it (``中国足球``, ``football
transfers``); a label is never broader than itself (a user who gives ``sports`` has said it).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from crawler import text as textmod

__all__ = ["SUBJECTS", "broader", "names_a_subject"]

# fmt: off
SUBJECTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # name: (labels, members)
    "sport": (
        ("sport", "sports", "体育", "体坛"),
        (
            "football", "soccer", "basketball", "tennis", "golf", "cricket", "rugby",
            "baseball", "hockey", "boxing", "cycling", "swimming", "athletics", "olympics",
            "olympic", "marathon", "formula one", "f1", "motorsport", "nba", "nfl", "mlb", "nhl",
            "premier league", "champions league", "world cup", "fifa", "uefa", "wimbledon",
            "snooker", "darts", "volleyball", "badminton", "table tennis", "skiing",
            "wrestling", "gymnastics", "horse racing", "triathlon", "ufc",
            "足球", "篮球", "网球", "排球", "乒乓球", "羽毛球", "高尔夫", "棒球", "橄榄球", "冰球",
            "田径", "游泳", "跳水", "体操", "举重", "拳击", "赛车", "马拉松", "奥运", "冬奥",
            "亚运", "全运会", "世界杯", "欧洲杯", "亚洲杯", "中超", "英超", "西甲", "意甲", "德甲",
            "法甲", "欧冠", "亚冠", "国足", "女足", "斯诺克", "滑雪", "滑冰", "围棋", "象棋",
        ),
    ),
    "business": (
        ("business", "finance", "financial", "economy", "money", "markets", "财经", "经济",
         "金融", "商业", "理财", "证券", "股票"),
        (
            "stock", "stocks", "shares", "stock market", "bank", "banking", "investment",
            "investor", "inflation", "interest rate", "interest rates", "fund", "bond",
            "bonds", "ipo", "earnings", "currency", "exchange rate", "oil price", "gdp",
            "recession", "insurance", "tax", "mergers", "startup", "economy",
            "股票", "股市", "基金", "银行", "投资", "保险", "债券", "期货", "外汇", "汇率",
            "通胀", "利率", "a股", "港股", "美股", "上市", "财报", "央行", "gdp", "理财",
            "创业", "经济",
        ),
    ),
    "technology": (
        ("tech", "technology", "digital", "computing", "internet", "科技", "数码", "互联网"),
        (
            "ai", "artificial intelligence", "software", "smartphone", "smartphones",
            "iphone", "android", "computer", "computers", "laptop", "chip", "chips",
            "semiconductor", "robot", "robots", "robotics", "cyber", "cybersecurity",
            "broadband", "gadget", "gadgets", "app", "apps", "5g", "blockchain", "cloud",
            "programming", "internet", "hacker", "hackers", "microsoft", "google", "apple",
            "手机", "电脑", "芯片", "人工智能", "软件", "机器人", "5g", "区块链", "半导体",
            "智能手机", "云计算", "大数据", "互联网", "黑客", "华为", "小米", "苹果",
        ),
    ),
    "entertainment": (
        ("entertainment", "arts", "showbiz", "culture", "film", "films", "music", "media",
         "celebrity", "娱乐", "文娱", "影视", "明星", "文化"),
        (
            "film", "films", "movie", "movies", "cinema", "actor", "actress", "oscar",
            "oscars", "album", "singer", "band", "concert", "tv", "television", "celebrity",
            "box office", "hollywood", "bollywood", "grammy", "grammys", "festival",
            "theatre", "theater", "pop", "comedy", "drama", "music", "novel", "book",
            "电影", "电视剧", "明星", "演员", "歌手", "综艺", "票房", "导演", "演唱会", "音乐",
            "偶像", "娱乐圈", "影帝", "影后", "专辑", "综艺节目", "小说",
        ),
    ),
    "politics": (
        ("politics", "political", "government", "时政", "政治", "政务", "国际"),
        (
            "election", "elections", "vote", "voting", "parliament", "minister", "president",
            "prime minister", "senate", "congress", "campaign", "labour", "conservative",
            "conservatives", "democrat", "democrats", "republican", "republicans", "mp",
            "mps", "referendum", "diplomacy", "brexit", "white house", "cabinet",
            "选举", "总统", "政府", "总理", "外交", "国会", "议会", "政策", "人大", "政协",
            "外交部", "首相", "大选", "公投", "白宫",
        ),
    ),
    "games": (
        ("games", "gaming", "esports", "游戏", "电竞"),
        (
            "video game", "video games", "console", "consoles", "playstation", "xbox",
            "nintendo", "esports", "gamer", "gamers",
            "网游", "手游", "电竞", "游戏", "主机游戏", "任天堂", "英雄联盟", "王者荣耀",
        ),
    ),
    "cars": (
        ("cars", "car", "auto", "autos", "motoring", "motors", "汽车", "车市"),
        (
            "suv", "suvs", "electric vehicle", "electric vehicles", "ev", "evs", "tesla",
            "hybrid", "sedan", "carmaker", "carmakers",
            "汽车", "新能源车", "电动车", "电动汽车", "车型", "轿车", "车企", "特斯拉", "比亚迪",
            "suv", "新车",
        ),
    ),
    "property": (
        ("property", "homes", "housing", "real estate", "房产", "楼市", "地产", "家居"),
        (
            "house prices", "house price", "mortgage", "mortgages", "rent", "landlord",
            "landlords", "housing market", "estate agent",
            "房价", "楼盘", "买房", "房贷", "二手房", "装修", "家具", "租房", "房地产",
        ),
    ),
    "education": (
        ("education", "schools", "learning", "教育", "校园"),
        (
            "school", "student", "students", "teacher", "teachers", "exam", "exams",
            "university", "universities", "college", "curriculum", "pupils", "tuition",
            "高考", "考研", "留学", "学校", "学生", "老师", "考试", "大学", "教育部", "中考",
        ),
    ),
    "health": (
        ("health", "medicine", "wellbeing", "健康", "医疗", "养生"),
        (
            "disease", "hospital", "hospitals", "doctor", "doctors", "cancer", "vaccine",
            "vaccines", "virus", "diet", "nhs", "obesity", "diabetes", "mental health",
            "医院", "医生", "疫苗", "病毒", "癌症", "疫情", "中医", "减肥", "糖尿病",
        ),
    ),
    "travel": (
        ("travel", "tourism", "旅游", "旅行"),
        (
            "hotel", "hotels", "flight", "flights", "airline", "airlines", "tourist",
            "tourists", "holiday", "holidays", "resort", "cruise",
            "景区", "酒店", "航班", "游客", "自驾游", "民宿", "景点",
        ),
    ),
    "military": (
        ("military", "defence", "defense", "军事", "国防"),
        (
            "army", "navy", "air force", "missile", "missiles", "troops", "weapon",
            "weapons", "warship", "fighter jet", "nato",
            "军队", "导弹", "航母", "战机", "解放军", "武器", "军舰", "北约",
        ),
    ),
    "fashion": (
        ("fashion", "style", "beauty", "时尚", "美容"),
        (
            "designer", "clothing", "catwalk", "cosmetics", "makeup", "fashion week",
            "服装", "化妆品", "美妆", "穿搭", "奢侈品", "时装",
        ),
    ),
    "science": (
        ("science", "科学", "探索"),
        (
            "space", "nasa", "physics", "chemistry", "biology", "astronomy", "climate",
            "climate change", "fossil", "dinosaur", "genetics", "planet",
            "航天", "物理", "化学", "生物", "天文", "气候", "化石", "恐龙", "基因", "火星",
        ),
    ),
    "farming": (
        ("farming", "agriculture", "rural", "三农", "农业", "农村"),
        (
            "farm", "farms", "farmer", "farmers", "crops", "livestock", "harvest",
            "农民", "种植", "养殖", "粮食", "农产品", "乡村振兴",
        ),
    ),
    "lottery": (
        ("lottery", "彩票"),
        ("jackpot", "lotto", "双色球", "大乐透", "福彩", "体彩", "开奖"),
    ),
}
# fmt: on
"""Subject → (the words that name it in navigation and URLs, the topics filed under it)."""


def _words(term: str) -> tuple[str, ...]:
    return tuple(textmod.tokenize(textmod.normalize(term)))


@functools.lru_cache(maxsize=1)
def _members() -> list[tuple[str, tuple[str, ...], tuple[str, ...]]]:
    """(member as normalized text, its words, the subject's labels) for every member."""
    return [
        (textmod.normalize(member), _words(member), labels)
        for labels, members in SUBJECTS.values()
        for member in members
    ]


def _contains(
    term: str, words: tuple[str, ...], member: str, member_words: tuple[str, ...]
) -> bool:
    """Whether ``member`` is the term or a part of it: a Chinese member anywhere in the text
    (``中国足球``), an English one as a run of its words (``football transfers``)."""
    if textmod.has_han(member):
        return member in term
    n = len(member_words)
    return n > 0 and any(words[i : i + n] == member_words for i in range(len(words) - n + 1))


def broader(terms: Iterable[str]) -> list[str]:
    """The labels of the subjects ``terms`` belong to (module doc), the terms themselves and
    their words left out; in the table's order, each once."""
    given = _given(terms)
    own = _said(given)
    out: dict[str, None] = {}
    for member, member_words, labels in _members():
        if any(_contains(norm, words, member, member_words) for norm, words in given):
            out.update((label, None) for label in labels if textmod.normalize(label) not in own)
    return list(out)


@functools.lru_cache(maxsize=1)
def _labels() -> frozenset[str]:
    """Every subject's labels, normalized."""
    return frozenset(
        textmod.normalize(label) for labels, _ in SUBJECTS.values() for label in labels
    )


def names_a_subject(terms: Iterable[str]) -> bool:
    """Whether the terms give a subject's own label ("sports", 体育) — the user has said the
    whole subject — rather than only topics filed under one ("football")."""
    return not _labels().isdisjoint(_said(_given(terms)))


def _given(terms: Iterable[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Each of the user's terms, normalized, with its words (blank terms left out)."""
    return [(textmod.normalize(t), _words(t)) for t in terms if t.strip()]


def _said(given: Iterable[tuple[str, tuple[str, ...]]]) -> set[str]:
    """What the user said: each term (normalized) and each of its words."""
    out: set[str] = set()
    for norm, words in given:
        out.add(norm)
        out.update(words)
    return out
