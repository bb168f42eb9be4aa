"""The ground-truth judge: which lab pages are about a topic, decided independently of the crawler.

Coarse topics are judged by the corpus label alone (category ``sports`` means sports).

The fine topic "football" (足球) is judged by the label *and* a broad term list written for this
judge: a page is about football when its label is ``sports`` and its title, keywords or body
names a football league, competition, national team, club, player, coach or an unambiguous
football term (中超, 英超, 欧冠, 国足, 世界杯, 恒大, 皇马, 梅西, C罗, 点球, 门将 …). The list is
deliberately not the crawler's keyword test: a user who asks for 足球 means these pages, and
most of them never print the literal word 足球 (see ../shared/data/README.md). Terms that are
shared with basketball or other sports (球队, 主帅, 球迷, 冠军, 联赛, 季后赛, 前锋, 后卫 …) are
left out so that the judge does not reward NBA news, and, as in English, a page must name more
football terms than words of the other sports (:data:`OTHER_SPORT_TERMS`: NBA, 篮板, 湖人, 网球 …).

English (BBC, :data:`FOOTBALL_TERMS_EN`): the same idea with its own list — clubs, competitions,
managers, players, grounds and positions (Chelsea, Champions League, FA Cup, Mourinho, Rooney,
Stamford Bridge, striker, goalkeeper …). BBC sport also covers rugby, cricket, tennis and
athletics, so words they share with football are left out ("try", "test", "captain", "coach",
"penalty", "Premiership" — rugby's top league in 2005 —, "World Cup", "Celtic League", city
names with a rugby club such as Leicester or Newcastle, surnames shared with rugby players such
as Owen or Robinson), and a story must name more football terms than other-sport words
(:data:`OTHER_SPORT_TERMS_EN`). Topic names are accepted in both languages (:func:`is_about`).
"""

from __future__ import annotations

import re

from lab.corpus import CATEGORY_NAMES, EN_CATEGORY_NAMES, Doc

FOOTBALL_TERMS: tuple[str, ...] = (
    # the sport and its institutions
    "足球",
    "足坛",
    "足协",
    "足联",
    "国际足联",
    "亚足联",
    "欧足联",
    "FIFA",
    "UEFA",
    "绿茵",
    "国足",
    "男足",
    "女足",
    "国奥",
    "国青",
    "足彩",
    # leagues and competitions
    "中超",
    "中甲",
    "中乙",
    "足协杯",
    "英超",
    "英冠",
    "英足总杯",
    "联赛杯",
    "西甲",
    "国王杯",
    "德甲",
    "德国杯",
    "意甲",
    "意大利杯",
    "法甲",
    "荷甲",
    "葡超",
    "俄超",
    "日职",
    "J联赛",
    "K联赛",
    "欧冠",
    "欧联",
    "联盟杯",
    "欧洲杯",
    "世界杯",
    "世预赛",
    "亚洲杯",
    "亚冠",
    "美洲杯",
    "金球奖",
    "金靴",
    "超级杯",
    "社区盾",
    "东亚杯",
    "十二强赛",
    # clubs
    "恒大",
    "国安",
    "上港",
    "申花",
    "鲁能",
    "苏宁",
    "权健",
    "华夏幸福",
    "富力",
    "建业",
    "泰达",
    "亚泰",
    "申鑫",
    "实德",
    "绿城",
    "舜天",
    "贵州人和",
    "北京人和",
    "力帆",
    "卓尔",
    "天津一方",
    "中能",
    "皇马",
    "皇家马德里",
    "巴萨",
    "巴塞罗那",
    "马竞",
    "马德里竞技",
    "瓦伦西亚",
    "塞维利亚",
    "比利亚雷亚尔",
    "曼联",
    "曼城",
    "切尔西",
    "阿森纳",
    "利物浦",
    "热刺",
    "埃弗顿",
    "纽卡斯尔",
    "南安普顿",
    "西汉姆",
    "铁锤帮",
    "斯旺西",
    "西布朗",
    "莱斯特",
    "红魔",
    "枪手",
    "蓝军",
    "拜仁",
    "多特",
    "沙尔克",
    "勒沃库森",
    "门兴",
    "狼堡",
    "尤文",
    "国米",
    "国际米兰",
    "AC米兰",
    "红黑军团",
    "罗马",
    "拉齐奥",
    "那不勒斯",
    "佛罗伦萨",
    "萨索洛",
    "大巴黎",
    "巴黎圣日耳曼",
    "摩纳哥",
    "里昂",
    "马赛",
    "阿贾克斯",
    "埃因霍温",
    "本菲卡",
    "波尔图",
    "鹿岛鹿角",
    "浦和红钻",
    # players and coaches
    "梅西",
    "C罗",
    "内马尔",
    "姆巴佩",
    "格列兹曼",
    "苏亚雷斯",
    "本泽马",
    "贝尔",
    "莫德里奇",
    "拉莫斯",
    "伊涅斯塔",
    "哈维",
    "皮克",
    "布斯克茨",
    "萨拉赫",
    "凯恩",
    "鲁尼",
    "贝克汉姆",
    "博格巴",
    "桑切斯",
    "林加德",
    "阿扎尔",
    "德布劳内",
    "阿奎罗",
    "斯特林",
    "莱万",
    "穆勒",
    "诺伊尔",
    "罗伊斯",
    "布冯",
    "托蒂",
    "皮尔洛",
    "卡卡",
    "罗纳尔多",
    "罗纳尔迪尼奥",
    "小罗",
    "马拉多纳",
    "贝利",
    "齐达内",
    "亨利",
    "范佩西",
    "伊布",
    "奥斯卡",
    "胡尔克",
    "保利尼奥",
    "阿兰",
    "埃尔克森",
    "武磊",
    "郜林",
    "郑智",
    "冯潇霆",
    "张琳芃",
    "于大宝",
    "颜骏凌",
    "孙继海",
    "李铁",
    "范志毅",
    "邵佳一",
    "杨晨",
    "郝海东",
    "李毅",
    "里皮",
    "卡纳瓦罗",
    "斯科拉里",
    "佩兰",
    "瓜迪奥拉",
    "穆里尼奥",
    "穆帅",
    "温格",
    "弗格森",
    "克洛普",
    "孔蒂",
    "安切洛蒂",
    "西蒙尼",
    "齐祖",
    "斯帕莱蒂",
    "高洪波",
    "卡马乔",
    "朱广沪",
    "米卢",
    # unambiguous football terms
    "点球",
    "任意球",
    "角球",
    "越位",
    "门将",
    "守门员",
    "帽子戏法",
    "乌龙球",
    "头球",
    "射门",
    "零封",
    "进球",
    "破门",
    "踢平",
    "踢球",
    "欧预赛",
    "巴洛特利",
    "马尔蒂尼",
    "梅阿查",
    "诺坎普",
    "伯纳乌",
    "老特拉福德",
    "安菲尔德",
    "斯坦福桥",
    "酋长球场",
    "球门",
    "边锋",
    "主裁判",
    "黄牌",
    "红牌",
)
"""Names and terms that mark a sports page as football. Deliberately broad; see the module doc.
Positions and places on the court that basketball shares (前锋, 后卫, 中场, 禁区) and words that
are parts of common words (球王 in 街球王, 人和 in 个人和, 一方 in 一方面) are not in it."""

OTHER_SPORT_TERMS: tuple[str, ...] = (
    "篮球",
    "NBA",
    "CBA",
    "篮板",
    "扣篮",
    "三分球",
    "罚球",
    "投篮",
    "季后赛",
    "全明星",
    "湖人",
    "火箭",
    "勇士",
    "骑士",
    "马刺",
    "凯尔特人",
    "雷霆",
    "篮网",
    "小牛",
    "独行侠",
    "热火",
    "尼克斯",
    "快船",
    "詹姆斯",
    "科比",
    "姚明",
    "易建联",
    "乔丹",
    "网球",
    "乒乓",
    "羽毛球",
    "排球",
    "女排",
    "高尔夫",
    "斯诺克",
    "台球",
    "F1",
    "赛车",
    "田径",
    "游泳",
    "跳水",
    "体操",
    "拳击",
    "围棋",
    "象棋",
    "滑雪",
    "冰球",
    "马拉松",
)
"""Unambiguous words of the other sports (basketball above all): counter-evidence when a sports
page names a football term in passing, as in English (:data:`OTHER_SPORT_TERMS_EN`)."""


def _any_re(terms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)))


_FOOTBALL_RE = _any_re(FOOTBALL_TERMS)
_OTHER_SPORT_RE = _any_re(OTHER_SPORT_TERMS)


FOOTBALL_TERMS_EN: tuple[str, ...] = (
    # the game and its institutions (lower-case "football" only: not "Rugby Football Union")
    "football",
    "footballer",
    "footballers",
    "soccer",
    "Fifa",
    "Uefa",
    "Football Association",
    "the FA",
    "English FA",
    "Scottish FA",
    "Irish FA",
    "IFA",
    "Football League",
    "PFA",
    "Bafana Bafana",
    # leagues and competitions ("Premiership", "Championship", "World Cup" are shared with
    # rugby and left out; their football stories name a club or player anyway)
    "Premier League",
    "Scottish Premier League",
    "SPL",
    "Coca-Cola Championship",
    "Nationwide Conference",
    "Champions League",
    "Uefa Cup",
    "FA Cup",
    "Carling Cup",
    "League Cup",
    "Scottish Cup",
    "CIS Cup",
    "CIS Insurance Cup",
    "Irish Cup",
    "Cosafa Cup",
    "African Nations Cup",
    "Home International",
    "Serie A",
    "La Liga",
    "Bundesliga",
    "Ligue 1",
    "Euro 2004",
    "Euro 2008",
    "Copa America",
    "Ballon d'Or",
    "Intertoto",
    "World Cup qualifier",
    "World Cup qualifiers",
    "Confederations Cup",
    "Old Firm",
    # clubs (not the cities that also have a rugby club: Newcastle, Leicester, Leeds, Wigan …)
    "Arsenal",
    "Gunners",
    "Chelsea",
    "Man Utd",
    "Manchester United",
    "Man City",
    "Manchester City",
    "Liverpool",
    "Everton",
    "Tottenham",
    "Spurs",
    "Aston Villa",
    "Middlesbrough",
    "Bolton",
    "Blackburn",
    "Fulham",
    "Portsmouth",
    "Southampton",
    "West Brom",
    "West Ham",
    "Wolves",
    "Sunderland",
    "Ipswich",
    "Millwall",
    "Nottingham Forest",
    "Sheffield United",
    "Sheffield Wednesday",
    "Crewe",
    "Brentford",
    "Burnley",
    "Stoke",
    "Plymouth",
    "QPR",
    "Watford",
    "Luton",
    "Hull City",
    "Cardiff City",
    "Swansea",
    "Wrexham",
    "Leyton Orient",
    "Mansfield",
    "Hereford",
    "Doncaster",
    "Celtic(?! League| Warriors| Cup)",
    "Rangers",
    "Hearts",
    "Hibernian",
    "Hibs",
    "Dundee United",
    "Kilmarnock",
    "Motherwell",
    "Dunfermline",
    "Real Madrid",
    "Barcelona",
    "Juventus",
    "AC Milan",
    "Inter Milan",
    "Bayern Munich",
    "Benfica",
    "Ajax",
    "PSV",
    "Deportivo",
    "Werder Bremen",
    "Bayer Leverkusen",
    # managers, players, owners (full names where the surname is also a rugby player's)
    "Mourinho",
    "Wenger",
    "Alex Ferguson",
    "Sir Alex",
    "Benitez",
    "Rooney",
    "Thierry Henry",
    "Beckham",
    "Gerrard",
    "Lampard",
    "John Terry",
    "Drogba",
    "Robben",
    "Ronaldo",
    "Ronaldinho",
    "Van Nistelrooy",
    "Vieira",
    "Pires",
    "Bergkamp",
    "Roy Keane",
    "Giggs",
    "Scholes",
    "Rio Ferdinand",
    "Eriksson",
    "Shearer",
    "Souness",
    "Moyes",
    "Martin O'Neill",
    "McLeish",
    "Allardyce",
    "Redknapp",
    "Abramovich",
    "Glazer",
    "Cisse",
    "Baros",
    "Crespo",
    "Kezman",
    "Gudjohnsen",
    "Cech",
    "Lehmann",
    "Sol Campbell",
    "Ashley Cole",
    "Joe Cole",
    "Andy Cole",
    "Reyes",
    "Van Persie",
    "Defoe",
    "Crouch",
    "Blatter",
    # positions, grounds and terms no other BBC sport uses ("try", "test", "captain",
    # "coach", "penalty", "full-back", "winger", "midfield", "hat-trick" are shared)
    "striker",
    "strikers",
    "goalkeeper",
    "goalkeepers",
    "goalkeeping",
    "midfielder",
    "midfielders",
    "centre-back",
    "centre-half",
    "penalty shoot-out",
    "spot-kick",
    "spot kick",
    "own goal",
    "own-goal",
    "equaliser",
    "clean sheet",
    "transfer window",
    "red card",
    "yellow card",
    "Old Trafford",
    "Highbury",
    "Anfield",
    "Stamford Bridge",
    "Goodison",
    "Ibrox",
    "Parkhead",
    "St James' Park",
    "White Hart Lane",
)
"""English names and terms that mark a BBC sport story as football (regular expressions, matched
case-sensitively as whole words). Deliberately broad; see :func:`is_football_en`."""

OTHER_SPORT_TERMS_EN: tuple[str, ...] = (
    "rugby",
    "Rugby",
    "Six Nations",
    "scrum",
    "scrum-half",
    "fly-half",
    "tries",
    "line-out",
    "lineout",
    "flanker",
    "number eight",
    "Twickenham",
    "Murrayfield",
    "Triple Crown",
    "Grand Slam",
    "Heineken Cup",
    "Celtic League",
    "cricket",
    "wicket",
    "tennis",
    "Davis Cup",
    "Hopman Cup",
    "Australian Open",
    "athletics",
    "Athletics",
    "IAAF",
    "sprinter",
    "marathon",
    "hurdles",
    "triple jump",
    "long jump",
    "heptathlon",
    "Grand Prix",
    r"(?<![£$€\d.,])(?:60|100|200|400|800|1500|3000|5000|10,000)m",
)
"""Unambiguous words of the other BBC sports: counter-evidence when a rugby, tennis or athletics
story mentions football in passing ("more common in Australian Rules football")."""


def _word_re(terms: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(?:" + "|".join(terms) + r")(?![\w-])")


_FOOTBALL_EN_RE = _word_re(FOOTBALL_TERMS_EN)
_OTHER_SPORT_EN_RE = _word_re(OTHER_SPORT_TERMS_EN)


def football_terms_in_en(text: str) -> list[str]:
    """The English football terms that occur in ``text`` (in order, repeated)."""
    return _FOOTBALL_EN_RE.findall(text)


def is_football_en(text: str) -> bool:
    """True when an English sport story is about football.

    It must name at least one football term, and more football terms than words of the other
    BBC sports (rugby, cricket, tennis, athletics): a Chelsea match report never says
    "football" and still counts; a rugby story that compares itself with football does not.
    """
    return _more_football(text, _FOOTBALL_EN_RE, _OTHER_SPORT_EN_RE)


def _more_football(text: str, football: re.Pattern[str], other: re.Pattern[str]) -> bool:
    """More football terms in ``text`` than words of the other sports (so at least one)."""
    return len(football.findall(text)) > len(other.findall(text))


def is_football(doc: Doc) -> bool:
    """True when a labelled document is about football: label sports, and more football terms
    than words of the other sports (in both languages)."""
    if doc.category != "sports":
        return False
    if doc.lang == "en":
        return is_football_en(f"{doc.title}. {doc.body}")
    text = " ".join((doc.title, " ".join(doc.keywords), doc.body[:2000]))
    return _more_football(text, _FOOTBALL_RE, _OTHER_SPORT_RE)


TOPICS: dict[str, tuple[str, bool]] = {
    "football": ("sports", True),
    "足球": ("sports", True),
    "soccer": ("sports", True),
    "sports": ("sports", False),
    "sport": ("sports", False),
    "体育": ("sports", False),
    **{name: (category, False) for category, name in CATEGORY_NAMES.items()},
    **{name.lower(): (category, False) for category, name in EN_CATEGORY_NAMES.items()},
    "business": ("finance", False),
}
"""Topic names in both languages → (category, fine topic football?)."""

TOPIC_KEYWORDS: dict[str, dict[str, list[str]]] = {
    "zh": {"sports": ["体育", "足球", "篮球", "比赛"], "football": ["足球"]},
    "en": {"sports": ["sports", "football", "tennis", "rugby"], "football": ["football"]},
}
"""What a user would type for each benchmark topic, per web language (``bench focus`` uses the
``zh`` sets; the ``en`` sets are their English counterparts for the English web)."""


def is_about(category: str, football: bool, topic: str) -> bool:
    """Ground-truth relevance of a page for a benchmark topic, named in English or Chinese.

    ``sports`` / ``sport`` / 体育 is the coarse topic (the label), ``football`` / 足球 the fine
    one (label + the judge's term list); other names are matched as a category
    (``finance`` / 财经 / ``business``), and an unknown name as a category key.
    """
    wanted, fine = TOPICS.get(topic, TOPICS.get(topic.lower(), (topic, False)))
    if fine:
        return football
    return category == wanted
