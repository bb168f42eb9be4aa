"""The default strategy (``adaptive``, crawler.steering) on hand-made graphs: the order it
fetches in, what it learns, what it carries to the next visit, and what it refuses to waste."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import pytest

from crawler.errors import HTTPStatusError
from crawler.profile import TopicProfile
from crawler.relevance import Relevance
from crawler.steering import Steering, url_pattern
from crawler.types import Link, Page
from tests.crawler.focus_graphs import GraphFetcher, order, page, run, site, url

TOPIC = "足球"


def hub(path: str, title: str, links: list[tuple[str, str]]) -> Page:
    return replace(page(path, title, links), kind="hub")


def test_url_patterns_blank_numbers_and_ids() -> None:
    assert url_pattern("http://news.x.cn/2018/0218/doc-i12mkrujjrm97.shtml") == (
        "news.x.cn/#/#/doc-*.shtml"
    )
    assert url_pattern("http://www.x.com/sport/list_2.html") == "x.com/sport/list_#.html"
    assert url_pattern("http://x.com/a.php?id=7&p=2") == "x.com/a.php?id&p"
    assert url_pattern("http://x.com/story/12345/a-slug") == url_pattern(
        "http://x.com/story/67890/a-slug"
    )


async def test_a_relevant_cluster_behind_an_off_topic_hub_is_reached_early() -> None:
    # The home page lists eight weather stories first, one football story, and a list page
    # whose own text ("列表") says nothing; the list holds six stories whose anchors say
    # nothing either but which are football. The one football story teaches that /ball/ is
    # on-topic, which makes its list worth opening before the weather.
    misc = [(f"/misc/{i}.html", "天气预报") for i in range(8)]
    cluster = [(f"/ball/c{i}.html", "赛事报道") for i in range(6)]
    pages = [
        hub("/", "首页", [*misc, ("/ball/a.html", "足球赛事"), ("/ball/list.html", "列表")]),
        page("/ball/a.html", "足球赛事"),
        hub("/ball/list.html", "列表", cluster),
        *(page(p, "足球比赛战报") for p, _ in cluster),
        *(page(p, "天气预报") for p, _ in misc),
    ]
    # (a graph this small is re-prioritised after every page, as a large crawl is every 50)
    params = {"rescore_every": 1}
    steered = order(await run(site(*pages), TOPIC, "adaptive", params=params))
    # at most one weather story (taken before the football one had been judged) comes first
    second_misc = sorted(steered.index(p) for p, _ in misc)[1]
    assert max(steered.index(p) for p, _ in cluster) < second_misc, steered
    bfs = order(await run(site(*pages), TOPIC, "bfs"))
    assert max(bfs.index(p) for p, _ in cluster) > min(bfs.index(p) for p, _ in misc)


async def test_a_section_learned_to_be_off_topic_is_abandoned() -> None:
    # The home page lists /a/ and /b/ stories alternately, 20 each, all with the same
    # uninformative anchor; /a/ stories are football, /b/ are not. With a budget of 30
    # fetches the crawl should spend it on /a/ once it has seen a few of each.
    links = [(f"/{s}/{i}.html", "详情") for i in range(20) for s in ("a", "b")]
    pages = [hub("/", "首页", links)]
    pages += [page(f"/a/{i}.html", "足球比赛") for i in range(20)]
    pages += [page(f"/b/{i}.html", "股市行情") for i in range(20)]
    params = {"rescore_every": 4}
    steered = order(await run(site(*pages), TOPIC, "adaptive", max_pages=30, params=params))
    bfs = order(await run(site(*pages), TOPIC, "bfs", max_pages=30))
    off_steered = sum(p.startswith("/b/") for p in steered)
    off_bfs = sum(p.startswith("/b/") for p in bfs)
    assert off_steered < off_bfs, (steered, bfs)
    # once learned, /b/ is left until /a/ runs out: every /a/ story comes before all but the
    # first /b/ ones
    last_a = max(i for i, p in enumerate(steered) if p.startswith("/a/"))
    assert sum(p.startswith("/a/") for p in steered) == 20
    assert sum(p.startswith("/b/") for p in steered[:last_a]) <= 2, steered


async def test_the_first_branch_comes_from_the_seed_pages_navigation_labels() -> None:
    # Nothing has been judged yet: the navigation label that says the user's word (or a
    # synonym) is where the crawl goes first; a label with an exclude word is not.
    nav = [("/finance/", "财经"), ("/lottery/", "足球彩票"), ("/tech/", "科技")]
    nav.append(("/sport/", "体育"))
    pages = [hub("/", "首页", nav)] + [hub(p, label, []) for p, label in nav]
    synonym = TopicProfile.from_keywords(["足球"], synonyms=["体育"], exclude=["彩票"])
    steered = order(await run(site(*pages), synonym, "adaptive"))
    assert steered[1] == "/sport/", steered
    assert steered.index("/lottery/") == len(steered) - 1, steered
    english = [("/business/", "Business"), ("/soccer/", "Soccer"), ("/tech/", "Technology")]
    pages = [hub("/", "Home", english)] + [hub(p, label, []) for p, label in english]
    profile = TopicProfile.from_keywords(["football"], synonyms=["soccer"])
    assert order(await run(site(*pages), profile, "adaptive"))[1] == "/soccer/"


async def test_the_first_branch_is_the_section_the_users_word_is_filed_under() -> None:
    # The user gave one word and no synonym: no navigation label says it, but one names the
    # subject it belongs to (football is a sport), and a person would take that branch first.
    nav = [("/finance/", "财经"), ("/tech/", "科技"), ("/ent/", "娱乐"), ("/sport/", "体育")]
    pages = [hub("/", "首页", nav)] + [hub(p, label, []) for p, label in nav]
    assert order(await run(site(*pages), TOPIC, "adaptive"))[1] == "/sport/"
    # without it the labels are all alike, and the crawl takes them in the page's order
    plain = order(await run(site(*pages), TOPIC, "adaptive", params={"p_broader": 0}))
    assert plain[1] == "/finance/", plain
    # a university's home: the departments' names, in English
    depts = [
        ("/dept/business/", "Business School"),
        ("/dept/computing/", "Computing"),
        ("/dept/media/", "Film, Music and Media"),
        ("/dept/sport-science/", "Sport and Exercise Science"),
    ]
    pages = [hub("/", "Northfield University", depts)] + [hub(p, a, []) for p, a in depts]
    steered = order(await run(site(*pages), "football", "adaptive"))
    assert steered[1] == "/dept/sport-science/", steered
    # the URL says it too: a link with no words of its own under /sport/ leads as well
    bare = [("/dept/computing/x/", ""), ("/dept/sport-science/x/", "")]
    pages = [hub("/", "Home", bare)] + [hub(p, "", []) for p, _ in bare]
    steered = order(await run(site(*pages), "football", "adaptive"))
    assert steered[1] == "/dept/sport-science/x/", steered


async def test_links_whose_urls_name_the_users_word_come_first() -> None:
    # Nothing judged yet, every link says "Read more": the URLs that name the user's word
    # in their section (/news/sport/) are where the crawl goes first
    misc = [(f"/news/world/{i}.html", "Read more") for i in range(8)]
    sport = [(f"/news/sport/{i}.html", "Read more") for i in range(4)]
    pages = [hub("/", "Home", [*misc[:4], *sport, *misc[4:]])]
    pages += [page(p, "Holmes injured") for p, _ in sport]
    pages += [page(p, "Rates rise") for p, _ in misc]
    steered = order(await run(site(*pages), "sports", "adaptive"))
    assert set(steered[1:5]) == {p for p, _ in sport}, steered
    bfs = order(await run(site(*pages), "sports", "bfs"))
    assert set(bfs[1:5]) != {p for p, _ in sport}


def _sections_site() -> dict[str, Page]:
    links = [(f"/{s}/{i}.html", "详情") for i in range(15) for s in ("b", "a")]
    pages = [hub("/", "首页", links)]
    pages += [page(f"/a/{i}.html", "足球比赛") for i in range(15)]
    pages += [page(f"/b/{i}.html", "股市行情") for i in range(15)]
    return site(*pages)


async def test_a_revisit_starts_from_what_the_last_visit_learned() -> None:
    states: list[dict] = []
    first = order(await run(_sections_site(), TOPIC, "adaptive", on_checkpoint=states.append))
    learned = states[-1]["steer"]
    assert learned["stats"], "the visit's statistics are in its final checkpoint"
    second = order(
        await run(_sections_site(), TOPIC, "adaptive", strategy_state=learned, max_pages=16)
    )
    cold = order(await run(_sections_site(), TOPIC, "adaptive", max_pages=16))
    assert first[:16] == cold  # the same start without the state
    off_warm = sum(p.startswith("/b/") for p in second)
    off_cold = sum(p.startswith("/b/") for p in cold)
    assert off_warm < off_cold, (second, cold)


def _list_site(new: int) -> dict[str, Page]:
    """A list of twelve football stories, and ``new`` more after them (the site later)."""
    stories = [f"/a/{i}.html" for i in range(12 + new)]
    listing = hub("/", "足球新闻", [(p, "详情") for p in stories])
    return site(listing, *(page(p, "足球") for p in stories))


async def test_a_revisit_fetches_the_items_it_has_not_seen_before_those_it_has() -> None:
    states: list[dict] = []
    first = order(await run(_list_site(0), TOPIC, "adaptive", on_checkpoint=states.append))
    assert len(first) == 13
    learned = states[-1]["steer"]
    new = {f"/a/{i}.html" for i in range(12, 15)}
    # the list shows the three new stories last; the visit reads four pages
    warm = order(await run(_list_site(3), TOPIC, "adaptive", strategy_state=learned, max_pages=4))
    assert set(warm[1:]) == new, warm
    forgetful = {k: v for k, v in learned.items() if k != "known"}
    plain = order(
        await run(_list_site(3), TOPIC, "adaptive", strategy_state=forgetful, max_pages=4)
    )
    assert not new & set(plain), plain  # as before: the list's order, old stories first
    # a known item is still fetched once nothing new is left
    everything = order(await run(_list_site(3), TOPIC, "adaptive", strategy_state=learned))
    assert len(everything) == 16


def test_the_state_keeps_the_newest_items_and_ignores_an_unreadable_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from crawler import steering
    from crawler.linkrank import url_key

    monkeypatch.setattr(steering, "KNOWN_CAP", 3)
    steer = Steering(TopicProfile.from_keywords([TOPIC]))
    for i in (1, 2, 3, 4, 2):  # the story /2 is fetched again last: it is among the newest
        steer.observe(page(f"/a/{i}.html", "足球"), 0.9, False)
    steer.observe(hub("/list.html", "列表", []), 0.5, True)  # a hub is never remembered
    state = steer.state()

    def values(params: dict[str, float] | None = None) -> tuple[float, float]:
        later = Steering(TopicProfile.from_keywords([TOPIC]), params)
        later.load(state)
        assert later.known == {url_key(url(f"/a/{i}.html")) for i in (3, 4, 2)}
        seen, new = (later.priority(url(f"/a/{i}.html"), 0.9, 0.9) for i in (2, 9))
        return seen, new

    known, unknown = values()
    assert 0 < known < 0.7 * unknown
    # no harvest, but what it may open is still worth a fetch; with the factor 1 it is as before
    assert values({"known": 0.0})[0] > 0
    assert values({"known": 1.0})[0] == values({"known": 1.0})[1]
    broken = Steering(TopicProfile.from_keywords([TOPIC]))
    broken.load({**state, "known": "not base64 ✗"})
    assert broken.known == set()
    assert broken.stats  # the rest of the state still loads


class _Calendar(GraphFetcher):
    """Serves the graph plus an endless calendar under /cal/: each day links to the next."""

    async def fetch(
        self, url_: str, *, etag: str | None = None, last_modified: str | None = None
    ) -> Page:
        if "/cal/" not in url_:
            return await super().fetch(url_, etag=etag, last_modified=last_modified)
        self.calls.append(url_)
        await asyncio.sleep(0)
        day = int(url_.rstrip("/").rsplit("/", 1)[1])
        if day > 100_000:
            raise HTTPStatusError(404, url=url_)
        nxt = f"{url_.rsplit('/', 2)[0]}/{day + 1}/"
        links = [Link(nxt, "下一天"), Link(f"{url_.rsplit('/', 2)[0]}/{day + 2}/", "后天")]
        title = "足球赛程日历"
        return Page(url=url_, final_url=url_, status=200, title=title, kind="hub", links=links)


async def test_hosts_share_the_budget_and_a_calendar_trap_does_not_eat_it() -> None:
    # Two sites on one frontier (scope any): each has 12 football stories; the first also has
    # an endless football-titled calendar. A budget of 40 finds all 24 stories, and the
    # calendar gets only a few pages before them: it opens nothing new.
    other = "http://u.test"
    t_links = [(f"/news/{i}.html", "足球新闻") for i in range(12)]
    pages = site(
        hub("/", "首页", [("/cal/1/", "足球赛程"), *t_links]),
        *(page(p, "足球新闻") for p, _ in t_links),
    )
    u_home = Page(
        url=f"{other}/",
        final_url=f"{other}/",
        status=200,
        title="首页",
        kind="hub",
        links=[Link(f"{other}/n/{i}.html", "足球报道") for i in range(12)],
    )
    pages[u_home.url] = u_home
    for i in range(12):
        u = f"{other}/n/{i}.html"
        pages[u] = Page(url=u, final_url=u, status=200, title="足球报道")
    events = await run(
        pages,
        TOPIC,
        "adaptive",
        seeds=("/", other + "/"),
        scope="any",
        max_pages=40,
        concurrency=4,
        fetcher=_Calendar(pages),
        params={"rescore_every": 5},
    )
    fetched = [e.url for e in events if not e.final]
    stories = [u for u in fetched if "/news/" in u or "/n/" in u]
    assert len(stories) == 24, fetched
    # the calendar only gets what the stories leave over
    last_story = max(i for i, u in enumerate(fetched) if "/news/" in u or "/n/" in u)
    calendar = [u for u in fetched[:last_story] if "/cal/" in u]
    assert len(calendar) <= 8, fetched
    # neither host waited for the other: each had a story among the first ten fetches
    assert any(u.startswith(url("/news/")) for u in fetched[:10])
    assert any(u.startswith(other + "/n/") for u in fetched[:10])


def test_loading_a_state_replaces_the_host_rates_it_derives() -> None:
    # a visit that resumes from a checkpoint loads twice (the last visit's state, then the
    # checkpoint's): the host rates must be those of the state loaded last

    first = Steering(TopicProfile.from_keywords([TOPIC]))
    first.observe(page("/a/1.html", "足球"), 0.9, False)
    other = Steering(TopicProfile.from_keywords([TOPIC]))
    other.observe(Page(url="http://u.test/x/1.html", final_url="", status=200), 0.1, False)
    fresh = Steering(TopicProfile.from_keywords([TOPIC]))
    fresh.load(first.state(), carry=1.0)
    fresh.load(other.state(), carry=1.0)
    assert set(fresh._host_rates) == {"u.test"}
    assert fresh._host_sum == fresh._host_rates["u.test"]


def test_before_the_model_is_warm_an_item_without_the_keyword_is_unknown_not_off_topic() -> None:
    from crawler.judgment import Judge

    def section_rate(judge: Judge, params: dict[str, float] | None = None) -> float:
        steer = Steering(TopicProfile.from_keywords([TOPIC]), params)
        steer.judge = judge
        for i in range(10):  # ten items the user's word is not in: probability 0 so far
            item = replace(page(f"/a/{i}.html", "中超第十轮"), kind="item")
            steer.score_links(item, Relevance(0.0, 0.5, False, probability=0.0), 1)
        return steer._rate(steer._keys(url("/a/11.html")))

    cold = Judge(TopicProfile.from_keywords([TOPIC]))
    assert not cold.warm
    assert section_rate(cold) >= 0.25  # the section is still worth learning from
    assert section_rate(cold, {"cold": 0.0}) < 0.1  # as it was: abandoned at once
    # once the model is warm its zeros are evidence again
    warm = Judge(TopicProfile.from_keywords([TOPIC]), state={"version": 2, "weights": {"x": 1}})
    assert warm.warm
    assert section_rate(warm) < 0.1


def test_a_host_barely_tried_is_worth_more_than_one_tried_as_much_with_the_same_yield() -> None:
    from crawler.judgment import Judge

    def rates(params: dict[str, float] | None = None) -> tuple[float, float]:
        # before the model is warm every item counts the same: 40 fetched on the seed's host,
        # 4 on another host, nothing tells them apart but how much each was tried
        steer = Steering(TopicProfile.from_keywords([TOPIC]), params)
        steer.judge = Judge(TopicProfile.from_keywords([TOPIC]))
        for host, n in (("http://seed.test", 40), ("http://other.test", 4)):
            for i in range(n):
                item = Page(
                    f"{host}/a/{i}.html", f"{host}/a/{i}.html", 200, title="赛事", kind="item"
                )
                steer.score_links(item, Relevance(0.0, 0.5, False, probability=0.0), 1)
        return (
            steer._rate(steer._keys("http://seed.test/a/99.html")),
            steer._rate(steer._keys("http://other.test/a/99.html")),
        )

    seed, other = rates()
    bare_seed, bare_other = rates({"explore": 0.0})
    # the other host's own few items already weigh less against the mean of the hosts; the
    # bonus adds its own share: 0.05 / √5 against 0.05 / √41
    assert other - seed > (bare_other - bare_seed) + 0.01
    assert other > seed


async def test_the_seeds_own_lists_come_before_the_other_stories_its_page_shows() -> None:
    # The seed is a section page (/sport/) that shows four of its stories, four "hot" stories
    # of other sections, and its own pagination; nothing says the keyword, so nothing tells
    # the stories apart yet: the section's pages are where its stories are.
    hot = [(f"/tech/2024/{i}.html", "热门新闻") for i in range(4)]
    own = [(f"/sport/2024/{i}.html", "赛事报道") for i in range(4)]
    more = [(f"/sport/2024/p{i}.html", "赛事报道") for i in range(6)]
    pages = [
        hub("/sport/", "体育", [*own, *hot, ("/sport/list_2.html", "第2页")]),
        hub("/sport/list_2.html", "体育 第2页", more),
        *(page(p, "赛事报道") for p, _ in own + more),
        *(page(p, "热门新闻") for p, _ in hot),
    ]
    steered = order(await run(site(*pages), TOPIC, "adaptive", seeds=("/sport/",)))
    assert steered.index("/sport/list_2.html") < min(steered.index(p) for p, _ in hot), steered
    plain = order(
        await run(
            site(*pages),
            TOPIC,
            "adaptive",
            seeds=("/sport/",),
            # (nor the name of the subject 足球 is filed under, in its URLs: ``subject_part``)
            params={"seed_hub": 0, "seed_item": 0, "subject_part": 0},
        )
    )
    assert plain.index("/sport/list_2.html") > min(plain.index(p) for p, _ in hot), plain


class _Judge:
    """A judgment whose link texts score 0.9 where they say the topic's word and 0 elsewhere;
    the pages' probabilities are what the test gives them, and ``now`` what a refit judges
    them."""

    names_subjects = False

    def __init__(self, warm: bool = True) -> None:
        self.warm, self.model = warm, object()
        self.now: dict[str, float] = {}

    def link_probability(self, text: str, *, subject: bool = True) -> float:
        return self.link_probabilities(text)[0]

    def link_probabilities(self, text: str) -> tuple[float, float]:
        value = 0.9 if TOPIC in text else 0.0
        return value, value

    def url_probabilities(self, url: str) -> tuple[float, float]:
        return 0.0, 0.0

    def probability_now(self, url: str) -> float | None:
        return self.now.get(url)


class _Queue:
    def reprioritize(self, again: object) -> None:
        pass


def _steer(params: dict[str, float] | None = None) -> Steering:
    steer = Steering(TopicProfile.from_keywords([TOPIC]), params)
    steer.attach(_Judge())  # type: ignore[arg-type]
    return steer


def _fetch(steer: Steering, pg: Page, probability: float) -> None:
    steer.score_links(pg, Relevance(0.0, 0.5, False, probability=probability), 1)


def _item(path: str, links: list[tuple[str, str]] = ()) -> Page:  # type: ignore[assignment]
    return replace(page(path, "报道", links), kind="item")


def _value(steer: Steering, path: str) -> float:
    """The priority of the queued link to ``path``, as it stands now."""
    a, parent = steer.links[url(path)]
    return steer.priority(url(path), a, steer._sibling(parent))


def test_items_fetched_before_a_refit_count_at_what_the_model_says_now() -> None:
    # Two lists, /a/ and /b/, five stories each, all judged 0.5 when fetched (before the
    # model knew the site). A refit then tells them apart: /a/ 0.9, /b/ 0.1. The lists' and
    # the sections' statistics follow the new judgment, not the first guess.

    def after_refit(warm: bool) -> Steering:
        steer = Steering(TopicProfile.from_keywords([TOPIC]))
        judge = _Judge(warm)
        steer.attach(judge)  # type: ignore[arg-type]
        for s in ("a", "b"):
            stories = [(f"/{s}/{i}.html", "详情") for i in range(5)]
            steer.score_links(
                hub(f"/{s}/list.html", "列表", stories), Relevance(0.0, 0.5, False), 0
            )
            for path, _ in stories:
                item = replace(page(path, "赛事"), kind="item")
                steer.score_links(item, Relevance(0.0, 0.5, False, probability=0.5), 1)
        judge.now = {
            url(f"/{s}/{i}.html"): p for s, p in (("a", 0.9), ("b", 0.1)) for i in range(5)
        }
        judge.model = object()  # a new fit
        steer.rescore(_Queue())  # type: ignore[arg-type]
        return steer

    steer = after_refit(warm=True)
    a, b = url("/a/list.html"), url("/b/list.html")
    # (the stories' sum, and the list's own 0.5 as three stories' worth: (4.5 + 1.5) / 8)
    assert steer._sibling(a) == pytest.approx(0.75)
    assert steer._sibling(b) == pytest.approx(0.25)
    rate_a = steer._rate(steer._keys(url("/a/99.html")))
    rate_b = steer._rate(steer._keys(url("/b/99.html")))
    assert rate_a - rate_b > 0.5
    assert steer.total.p_sum == pytest.approx(5 * 0.9 + 5 * 0.1)
    # a second refit that changes nothing counts nothing twice
    steer._model_mark = None
    steer.rescore(_Queue())  # type: ignore[arg-type]
    assert steer.total.p_sum == pytest.approx(5.0)
    assert steer._sibling(a) == pytest.approx(0.75)
    # before the model is warm an item's first judgment stands
    cold = after_refit(warm=False)
    assert cold._sibling(a) == cold._sibling(b) == pytest.approx(0.5)


def test_a_list_is_worth_what_the_lists_of_its_directory_led_to() -> None:
    # Two channels of a site whose stories share one flat URL shape (/a/<id>.html), so
    # neither the section nor the pattern of a story tells them apart: /sport/ listed five
    # stories judged 0.9, /tech/ five judged 0.1. Their second pages, linked from a story
    # page, are worth what the first pages led to — not hub (0.6) times a guess from the page
    # that links them.
    def values(params: dict[str, float] | None = None) -> tuple[float, float]:
        steer = _steer(params)
        for channel, p in (("sport", 0.9), ("tech", 0.1)):
            stories = [(f"/a/{channel}{i}.html", "详情") for i in range(5)]
            _fetch(steer, hub(f"/{channel}/", "频道", stories), 0.5)
            for path, _ in stories:
                _fetch(steer, _item(path), p)
        lists = [("/sport/list_2.html", "2"), ("/tech/list_2.html", "2")]
        _fetch(steer, _item("/a/x.html", lists), 0.5)
        return _value(steer, "/sport/list_2.html"), _value(steer, "/tech/list_2.html")

    sport, tech = values()
    plain_sport, plain_tech = values({"hub_yield": 0})
    assert plain_sport == pytest.approx(plain_tech)  # nothing told the two lists apart
    assert sport > plain_sport > tech
    assert sport - tech > 0.3


def test_an_on_topic_storys_links_are_expected_at_what_the_stories_links_turned_out() -> None:
    # A story judged 0.9 linked ten stories: three on the topic (0.9), seven not (0.1) — the
    # site's "most read" box. A new on-topic story's links are expected at 0.9 times what the
    # stories' links turned out against their parents (3.4 of 9, smoothed: 8.4 / 14), so the
    # links of a list whose stories were all on the topic now come first. Smoothed towards a
    # half (``item_links`` 0.5): 5.9 / 14.
    def expected(params: dict[str, float] | None = None) -> tuple[float, float]:
        steer = _steer(params)
        kids = [(f"/a/k{i}.html", "详情") for i in range(10)]
        _fetch(steer, _item("/a/first.html", kids), 0.9)
        for i, (path, _) in enumerate(kids):
            _fetch(steer, _item(path), 0.9 if i < 3 else 0.1)
        listed = [(f"/a/l{i}.html", "详情") for i in range(4)]
        _fetch(steer, hub("/list.html", "列表", listed), 0.5)
        for path, _ in listed[:3]:
            _fetch(steer, _item(path), 0.9)
        _fetch(steer, _item("/a/new.html", [("/a/n.html", "详情")]), 0.9)
        steer.rescore(_Queue())  # type: ignore[arg-type]
        return steer._sibling(url("/a/new.html")), steer._sibling(url("/list.html"))

    story, listing = expected()
    assert story == pytest.approx(0.9 * 8.4 / 14)
    assert expected({"item_links": 0.5})[0] == pytest.approx(0.9 * 5.9 / 14)
    assert listing > story
    plain_story, plain_listing = expected({"item_links": 0})
    assert plain_story == pytest.approx(0.9)
    assert plain_story > plain_listing


def test_a_story_whose_link_said_the_topic_says_little_of_its_parents_other_links() -> None:
    # A story judged 0.5 links five stories: two whose links say 足球 (and which turn out on
    # the topic, 0.9: they were fetched because their links said so) and three whose links
    # say nothing. The three are worth what the parent's links whose text said nothing led
    # to — nothing yet — not what the two led to.
    def sibling(params: dict[str, float] | None = None) -> float:
        steer = _steer({"item_links": 0, **(params or {})})
        kids = [("/a/k0.html", "足球快讯"), ("/a/k1.html", "足球快讯")]
        kids += [(f"/a/m{i}.html", "详情") for i in range(3)]
        _fetch(steer, _item("/a/first.html", kids), 0.5)
        for path, _ in kids[:2]:
            _fetch(steer, _item(path), 0.9)
        return steer._sibling(url("/a/first.html"))

    counted = sibling()
    plain = sibling({"kid_text": 0})
    assert plain == pytest.approx((1.8 + 3 * 0.5) / (2 + 3))
    # each of the two counts 1 − 0.9 of an item
    assert counted == pytest.approx((0.2 * 0.9 + 3 * 0.5) / (0.2 + 3))
    assert counted < plain


def test_a_revisit_starts_from_what_the_lists_and_the_stories_links_led_to() -> None:
    # The first visit: /sport/ listed five stories judged 0.9, /tech/ five judged 0.1, and a
    # story judged 0.9 linked twenty stories of which six turned out on the topic. The next
    # visit (which counts them at half their weight, ``carry``), before it has fetched
    # anything through a list or a story, prices /sport/'s second page above /tech/'s and
    # expects less of an on-topic story's links than the story's own probability.
    first = _steer()
    for channel, p in (("sport", 0.9), ("tech", 0.1)):
        stories = [(f"/a/{channel}{i}.html", "详情") for i in range(5)]
        _fetch(first, hub(f"/{channel}/", "频道", stories), 0.5)
        for path, _ in stories:
            _fetch(first, _item(path), p)
    kids = [(f"/a/k{i}.html", "详情") for i in range(20)]
    _fetch(first, _item("/a/first.html", kids), 0.9)
    for i, (path, _) in enumerate(kids):
        _fetch(first, _item(path), 0.9 if i < 6 else 0.1)
    state = first.state()
    assert json.loads(json.dumps(state)) == state

    def next_visit(state: dict[str, object] | None) -> tuple[float, float, float]:
        steer = _steer()
        steer.load(state)
        lists = [("/sport/list_2.html", "2"), ("/tech/list_2.html", "2")]
        _fetch(steer, _item("/a/x.html", [*lists, ("/a/y.html", "详情")]), 0.9)
        steer.rescore(_Queue())  # type: ignore[arg-type]
        return (
            _value(steer, "/sport/list_2.html"),
            _value(steer, "/tech/list_2.html"),
            steer._sibling(url("/a/x.html")),
        )

    sport, tech, story = next_visit(state)
    # a state saved before these were kept (the sections' and patterns' statistics only)
    # loads as before: nothing tells the lists apart, and a story's links are expected at its
    # own probability
    older = {k: v for k, v in state.items() if k not in ("yields", "item_links")}
    plain_sport, plain_tech, plain_story = next_visit(older)
    assert plain_sport == pytest.approx(plain_tech)
    assert sport > plain_sport > tech
    assert plain_story == pytest.approx(0.9)
    assert story == pytest.approx(0.9 * (3.4 + 5) / (9 + 5))  # R from the carried sums


async def test_before_anything_is_judged_the_seeds_part_of_the_site_comes_first() -> None:
    # The seed is a department's page: eight of its own courses (directory URLs, which look
    # like lists) and the home pages of six other universities. Nothing prints the keyword,
    # so every course fetched counts as unknown (``cold``); an unexplored university would
    # then look better than the department whose courses were just fetched, and the crawl
    # would leave the part of the site the user pointed at before it had read it.
    own = [(f"/dept/sport/courses/c{i}/", f"课程 {i}") for i in range(8)]
    others = [f"http://u{i}.test/" for i in range(6)]
    theirs = {h: [f"{h}dept/{d}/" for d in ("art", "law", "math")] for h in others}
    pages = [
        hub("/dept/sport/", "体育系", [*own]),
        *(page(p, "课程介绍 训练 体能") for p, _ in own),
    ]
    pages[0].links.extend(Link(h, anchor="大学") for h in others)
    for h in others:
        pages.append(
            Page(h, h, 200, title="大学", kind="hub", links=[Link(u, "院系") for u in theirs[h]])
        )
        pages += [Page(u, u, 200, title="院系", kind="hub") for u in theirs[h]]

    def last_own(steered: list[str]) -> int:
        return max(steered.index(p) for p, _ in own)

    def hubs_before(steered: list[str], n: int) -> int:
        return sum(1 for u in steered[:n] if u.startswith("http"))

    seeds = ("/dept/sport/",)
    steered = order(await run(site(*pages), TOPIC, "adaptive", seeds=seeds, scope="any"))
    # (the seed page is also a list of eight pages of one shape, which ``open_same`` counts
    # as a list that opens items; without that either, only ``seed_item`` keeps the crawl;
    # and the name of the subject 足球 is filed under in its URLs, ``subject_part``)
    plain = order(
        await run(
            site(*pages),
            TOPIC,
            "adaptive",
            seeds=seeds,
            scope="any",
            params={"seed_item": 0, "open_same": 0, "subject_part": 0},
        )
    )
    # every course of the department before any other university
    assert hubs_before(steered, last_own(steered)) == 0, steered
    # without it, the other universities came first once a few courses were fetched
    assert hubs_before(plain, last_own(plain)) > 0, plain


def seeded_rates(seed: str, link: str, fetched: str) -> tuple[float, float]:
    """S of ``link`` with and without the seed's part counted, after ten items at ``fetched``
    (a format of ``i``) were fetched and nothing judged them yet (each counts ``cold``)."""
    from crawler.judgment import Judge

    steer = Steering(TopicProfile.from_keywords([TOPIC]))
    steer.judge = Judge(TopicProfile.from_keywords([TOPIC]))
    steer.seed(seed)
    for i in range(10):
        item = Page(fetched.format(i=i), fetched.format(i=i), 200, title="课程介绍", kind="item")
        steer.score_links(item, Relevance(0.0, 0.5, False, probability=0.0), 1)
    keys = steer._keys(link)
    return steer._seeded_rate(keys, steer._seed_area_of(link)), steer._rate(keys)


def test_a_home_page_seed_names_the_whole_site_and_prefers_no_part_of_it() -> None:
    def rates(seed: str, link: str) -> tuple[float, float]:
        return seeded_rates(url(seed), url(link), url("/dept/sport/courses/c{i}/"))

    seeded, plain = rates("/dept/sport/", "/dept/sport/courses/c99/")
    assert plain < 0.4 and seeded >= 0.5  # the part the user pointed at
    other, plain = rates("/dept/sport/", "/dept/law/courses/c1/")
    assert other == plain  # not another part of the site
    home, plain = rates("/", "/dept/sport/courses/c99/")
    assert home == plain < 0.4  # a home page names the whole site: no part of it


def test_a_sections_own_host_is_a_part_of_its_site_as_a_directory_is() -> None:
    """``sports.example.cn/`` is the sports section of ``example.cn`` (a portal's sections on
    hosts of their own); ``www.example.cn/`` and ``m.example.cn/`` are its home page."""

    def rates(seed: str, link: str) -> tuple[float, float]:
        fetched = "http://sports.example.cn/2024/0601/a{i}.html"
        return seeded_rates(seed, link, fetched)

    story = "http://sports.example.cn/2024/0601/a99.html"
    seeded, plain = rates("http://sports.example.cn/", story)
    assert plain < 0.4 and seeded >= 0.5  # the section's host: the part the user pointed at
    other, plain = rates("http://sports.example.cn/", "http://news.example.cn/2024/0601/b1.html")
    assert other == plain  # another section's host is not
    for home in ("http://www.example.cn/", "http://example.cn/", "http://m.example.cn/"):
        rate, plain = rates(home, story)
        assert rate == plain < 0.4, home  # a home page names the whole site


async def test_a_list_of_pages_at_directory_urls_counts_as_one_that_opens_items() -> None:
    # The seed is a department's page: two news stories, its list of courses, and the home
    # pages of six other universities. Courses sit at directory URLs (/courses/c3/), which
    # by their shape alone are more likely lists than stories (``url_item_prior`` 0.38), so
    # a list of ten of them holds no single link that looks like an item — yet about four
    # items are to be expected behind it. Counted as a list that opened nothing, it made
    # the department's part of the site look poorer in items than the other universities'
    # departments, which came first.
    own = [(f"/dept/sport/courses/c{i}/", f"课程 {i}") for i in range(10)]
    news = [(f"/dept/sport/news/{i}.html", "体育系新闻") for i in range(2)]
    homes = [f"http://u{i}.test/" for i in range(6)]
    theirs = {h: [f"{h}dept/{d}/" for d in ("art", "law", "math")] for h in homes}
    pages = [
        hub("/dept/sport/", "体育系", [*news, ("/dept/sport/courses/", "课程")]),
        hub("/dept/sport/courses/", "课程", own),
        *(page(p, "课程介绍 训练 体能") for p, _ in own),
        *(page(p, t) for p, t in news),
    ]
    pages[0].links.extend(Link(h, anchor="大学") for h in homes)
    for h in homes:
        pages.append(
            Page(h, h, 200, title="大学", kind="hub", links=[Link(u, "院系") for u in theirs[h]])
        )
        pages += [Page(u, u, 200, title="院系", kind="hub") for u in theirs[h]]
    seeds = ("/dept/sport/",)

    def others_before_last_course(steered: list[str]) -> int:
        last = max(steered.index(p) for p, _ in own)
        return sum(1 for u in steered[:last] if u.startswith("http"))

    steered = order(await run(site(*pages), TOPIC, "adaptive", seeds=seeds, scope="any"))
    plain = order(
        await run(
            site(*pages),
            TOPIC,
            "adaptive",
            seeds=seeds,
            scope="any",
            # (and without the subject's name in the department's URLs: ``subject_part``)
            params={"open_same": 0, "subject_part": 0},
        )
    )
    # at most one other university (taken next while the list's own links were being
    # valued, before the list itself was counted); counted as barren, all six came first
    assert others_before_last_course(steered) <= 1, steered
    assert others_before_last_course(plain) == len(homes), plain


def test_links_of_a_shape_already_fetched_open_nothing_by_their_number() -> None:
    # A topic cloud: every topic page lists ten more topic pages (a path that may still be an
    # item's; a tag's, /tag/x/, is a list by its path alone). The first list of them is a
    # list of pages of a shape never fetched (expected to hold an item or two); once topic
    # pages have been fetched and found to be lists, more of them reveal nothing, and the
    # topics' worth as lists decays with every one fetched, as a calendar's does.
    from crawler.judgment import Judge

    profile = TopicProfile.from_keywords([TOPIC])
    steer = Steering(profile)
    steer.judge = Judge(profile)
    steer.seed(url("/"))
    n = 0

    def tag_page(path: str) -> None:
        nonlocal n
        links = [Link(url(f"/topic/t{n + i}/"), anchor="话题") for i in range(1, 11)]
        n += 10
        tags = Page(url(path), url(path), 200, title="话题", kind="hub", links=links)
        steer.score_links(tags, Relevance(0.0, 0.5, False, probability=0.0), 1)

    tag_page("/topics.html")
    first = steer.stats[steer._keys(url("/topics.html"))[-1]]
    assert first.opened == 1  # ten topics never fetched: about three items expected
    for _ in range(5):
        tag_page(f"/topic/t{n}/")
    keys = steer._keys(url("/topic/t99/"))
    # only the first topic page, read while no tag page had been fetched, counts as one that
    # opened something
    assert steer.stats[keys[-1]].hubs == 5 and steer.stats[keys[-1]].opened == 1
    assert steer._opens(keys) == pytest.approx(2 / 6)


def _courses_site(courses: int = 12) -> dict[str, Page]:
    """A list of football courses' syllabus pages, then their lectures, every link saying
    足球: a syllabus page has nothing on it (a hub that opens nothing), a lecture is a story."""
    syllabus = [(f"/c{i}/syllabus.html", f"足球课程{i}大纲") for i in range(courses)]
    lectures = [(f"/c{i}/l{n}.html", f"足球课程{i}第{n}讲") for i in range(courses) for n in (1, 2)]
    pages = [hub("/", "课程列表", syllabus + lectures)]
    pages += [hub(p, "课程大纲", []) for p, _ in syllabus]
    pages += [page(p, f"{a}：传球与射门") for p, a in lectures]
    return site(*pages)


async def test_links_of_a_pattern_that_turned_out_a_dead_end_wait_without_a_rescore() -> None:
    # the syllabus links come first and look as good as the lectures; the first syllabus
    # pages fetched hold nothing: the rest wait behind the lectures at once, not only after
    # the next re-prioritisation of the queue (every five fetches this early in a visit)
    runs = {}
    for fresh in (1.0, 0.0):
        fetched = order(
            await run(_courses_site(), TOPIC, "adaptive", max_pages=20, params={"fresh": fresh})
        )
        runs[fresh] = sum(p.endswith("syllabus.html") for p in fetched)
    assert runs[1.0] <= 2, runs
    assert runs[1.0] < runs[0.0], runs


async def test_from_a_sections_page_a_narrow_topic_goes_on_to_its_subjects_other_sections() -> None:
    # The user pointed at one university's sports department and gave one word no label
    # prints (足球). Its own courses read, the crawl has to go elsewhere: every other
    # university lists its politics school before its sports school. Football is a sport: the
    # sports schools come first, as they would from a home page.
    own = [(f"/dept/sport/courses/c{i}/", f"课程 {i}") for i in range(2)]
    others = [f"http://u{i}.test/" for i in range(3)]
    pages = [
        hub("/dept/sport/", "体育系", [*own]),
        *(page(p, "课程介绍 训练 体能") for p, _ in own),
    ]
    pages[0].links.extend(Link(h, anchor="大学") for h in others)
    for h in others:
        depts = [Link(f"{h}dept/politics/", "政治学院"), Link(f"{h}dept/sport/", "体育学院")]
        pages.append(Page(h, h, 200, title="大学", kind="hub", links=depts))
        pages += [Page(d.url, d.url, 200, title=d.anchor, kind="hub") for d in depts]

    def sport_first(steered: list[str]) -> bool:
        sport = [steered.index(f"{h}dept/sport/") for h in others]
        politics = [steered.index(f"{h}dept/politics/") for h in others]
        return max(sport) < min(politics)

    async def crawl(words: str, **params: float) -> list[str]:
        graph = site(*pages)
        return order(
            await run(graph, words, "adaptive", seeds=("/dept/sport/",), scope="any", params=params)
        )

    assert sport_first(steered := await crawl(TOPIC)), steered
    # without it, the page's order: a politics school before the last sports school
    assert not sport_first(plain := await crawl(TOPIC, subject_part=0)), plain


def _dead_tags_site() -> dict[str, Page]:
    """Every story links six tag pages, named 足球 like the stories, that the site never made
    (404); the home page lists the first story and a list of the other nineteen."""
    stories = [f"/news/{i}.html" for i in range(20)]

    def story(i: int) -> Page:
        tags = [(f"/t/{i * 6 + k}.html", "足球") for k in range(6)]
        return page(stories[i], "足球新闻", tags)

    return site(
        hub("/", "首页", [(stories[0], "足球新闻"), ("/more.html", "更多")]),
        hub("/more.html", "更多", [(p, "新闻") for p in stories[1:]]),
        *(story(i) for i in range(20)),
    )


async def test_links_of_a_shape_that_keeps_failing_wait_behind_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a failed fetch counts as a page of its shape that gave nothing: after a few dead tag
    # links the stories' list comes first, though its links do not say the user's word
    runs = {}
    for learns in (True, False):
        if not learns:
            monkeypatch.setattr(Steering, "failed", lambda self, url: None)
        fetched = order(await run(_dead_tags_site(), TOPIC, "adaptive", max_pages=30))
        runs[learns] = (
            sum(p.startswith("/news/") for p in fetched),
            sum(p.startswith("/t/") for p in fetched),
        )
    assert runs[True][0] == 20 and runs[True][1] <= runs[False][1] // 2, runs


def test_a_links_text_can_be_its_own_and_its_lists_not_one_neighbours_headline() -> None:
    # A "most read" box: the words around each link are its neighbours' headlines, which say
    # what *their* pages are about. Only the first of eight says 足球. With ``own_context`` and
    # ``near_links`` the stock-market story below it is not raised to half of it; in a list
    # whose headlines say 足球, the one that does not is likely on the topic too; a link inside
    # a sentence keeps the sentence's words. By default (neither) the box's neighbour raises
    # it, as the list's own neighbours raise theirs.
    from crawler.parse import parse_html

    def listing(path: str, heads: list[str], tail: str = "") -> Page:
        items = "".join(
            f'<li><a href="{path}{i}.html">{head}</a></li>' for i, head in enumerate(heads)
        )
        html = f"<html><head><title>列表</title></head><body><ul>{items}</ul>{tail}</body>"
        return replace(parse_html(html, url(f"{path}list.html")), kind="hub")

    others = [
        "股市今日大涨三个百分点",
        "新款轿车本周正式上市",
        "暴雨明日来袭多地预警",
        "房价环比持平成交回落",
        "今年高考分数线公布",
        "一种新药获批上市销售",
        "春运车票今起开售",
    ]
    box = listing("/box/", ["足球：国足三比零胜对手", *others])
    second = next(link for link in box.links if link.url == url("/box/1.html"))
    assert TOPIC in second.context  # the neighbour's headline is around it in the page
    football = ["足球：国足三比零胜对手", "足球：申花客场两球取胜", "梅西梅开二度巴萨大胜"]
    topical = listing(
        "/football/",
        [*football, "足球：联赛第十轮综述"],
        '<p>昨晚的足球比赛回顾，<a href="/more.html">详情请看</a>。</p>',
    )

    def a(params: dict[str, float] | None = None) -> tuple[float, ...]:
        steer = _steer(params)
        _fetch(steer, box, 0.5)
        _fetch(steer, topical, 0.5)
        return tuple(
            steer.links[url(path)][0]
            for path in ("/box/0.html", "/box/1.html", "/football/2.html", "/more.html")
        )

    said, beside, listed, sentence = a({"own_context": 1, "near_links": 0.5})
    assert said == pytest.approx(0.9)
    assert beside == pytest.approx(0.5 * 0.9 / 5)  # its four neighbours either side: one said it
    # three of its four neighbours said it (the fourth: the sentence's link, 详情请看)
    assert listed == pytest.approx(0.5 * 0.9 * 3 / 4)
    assert sentence == pytest.approx(0.45)  # its sentence, at half
    assert a({"own_context": 1})[1:3] == (0.0, 0.0)
    assert a() == (pytest.approx(0.9), 0.45, 0.45, 0.45)
