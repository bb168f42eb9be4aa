"""Each link strategy on a hand-made graph whose right fetch order is known (docs/algorithms.md §6).

Page titles containing 足球 are relevant to the topic "足球"; the others are not. Every test
asserts the order in which the engine fetched the pages (concurrency 1, so it is exact).
"""

from __future__ import annotations

import pytest

from crawler.profile import TopicProfile
from crawler.relevance import score_page
from crawler.strategies import (
    STRATEGIES,
    TopicPageRank,
    make_strategy,
    section_keys,
    url_tokens,
)
from tests.crawler.focus_graphs import fetches, order, page, run, site, url

TOPIC = "足球"


def two_branches(rel_a: str, rel_b: str) -> dict:
    return site(
        page("/", "足球新闻", [("/a", "下一页"), ("/b", "另一页")]),
        page("/a", rel_a, [("/a1", "下一页")]),
        page("/b", rel_b, [("/b1", "下一页")]),
        page("/a1", "尾页"),
        page("/b1", "尾页"),
    )


async def test_bfs_fetches_level_by_level() -> None:
    events = await run(two_branches("天气预报", "足球比赛"), TOPIC, "bfs")
    assert order(events) == ["/", "/a", "/b", "/a1", "/b1"]


async def test_fish_prefers_children_of_relevant_pages() -> None:
    # /a is irrelevant: its child gets potential 0.5; /b is relevant: its child gets 1.
    events = await run(two_branches("天气预报", "足球比赛"), TOPIC, "fish")
    assert order(events) == ["/", "/a", "/b", "/b1", "/a1"]


def chain(first: str) -> dict:
    return site(
        page("/", first, [("/a", "下一页")]),
        page("/a", "天气预报", [("/b", "下一页")]),
        page("/b", "股市行情", [("/c", "下一页")]),
        page("/c", "彩票开奖"),
    )


async def test_fish_prunes_at_depth_zero() -> None:
    # An irrelevant seed with D=1 gives its children depth 0: fetched, never expanded.
    assert order(await run(chain("天气"), TOPIC, "fish", params={"D": 1})) == ["/", "/a"]
    # Each irrelevant page costs one level of depth: D=2 reaches one level further.
    assert order(await run(chain("天气"), TOPIC, "fish", params={"D": 2})) == ["/", "/a", "/b"]
    # A relevant page keeps its children's depth.
    assert order(await run(chain("足球"), TOPIC, "fish", params={"D": 1})) == ["/", "/a", "/b"]


async def test_fish_window_limits_children_of_irrelevant_pages() -> None:
    links = [(f"/c{i}", "链接") for i in range(4)]
    graph = site(page("/", "天气", links), *(page(f"/c{i}", "尾页") for i in range(4)))
    strategy = make_strategy("fish", TopicProfile.from_keywords(TOPIC), {"W": 2, "a": 1.5})
    root = graph[url("/")]
    scored = strategy.score_links(root, score_page(root, strategy.profile, method="fish"), 2)
    assert [s.priority for s in scored] == [0.5, 0.5, 0.0, 0.0]
    assert {s.depth for s in scored} == {1}


async def test_fish_kp_orders_children_by_parent_sim() -> None:
    # jieba: 天气预报 → [天气预报], 足球 天气 → [足球, 天气], 足球 → [足球]
    # so sim(/p) = 0, sim(/q) = 1/2 (not > T = 0.5), sim(/r) = 1.
    graph = site(
        page("/", "足球", [("/p", "下一页"), ("/q", "下一页"), ("/r", "下一页")]),
        page("/p", "天气预报", [("/p1", "下一页")]),
        page("/q", "足球 天气", [("/q1", "下一页")]),
        page("/r", "足球", [("/r1", "下一页")]),
        page("/p1", "尾页"),
        page("/q1", "尾页"),
        page("/r1", "尾页"),
    )
    events = await run(graph, TOPIC, "fish-kp")
    assert order(events) == ["/", "/p", "/q", "/r", "/r1", "/q1", "/p1"]
    assert [e.priority for e in fetches(events)[4:]] == [1.0, 0.5, 0.0]


def popularity_graph(title: str) -> dict:
    # /b is linked from the seed and from /a, so its PageRank is higher than /c's.
    return site(
        page("/", title, [("/a", "一"), ("/b", "二"), ("/c", "三")]),
        page("/a", title, [("/b", "二"), ("/h", "四")]),
        page("/b", title, [("/b1", "五")]),
        page("/c", title, [("/c1", "六")]),
        page("/h", title),
        page("/b1", title),
        page("/c1", title),
    )


async def test_pagerank_queues_children_with_the_parents_rank() -> None:
    events = await run(popularity_graph("天气"), TOPIC, "pagerank")
    assert order(events) == ["/", "/a", "/b", "/c", "/b1", "/h", "/c1"]
    # R(/b) = 0.15 + 0.85/3 + 0.85·R(/a)/2 with R(/a) = 0.15 + 0.85/3
    r_a = 0.15 + 0.85 / 3
    assert fetches(events)[4].priority == pytest.approx(r_a + 0.85 * r_a / 2)
    assert fetches(events)[5].priority == pytest.approx(r_a)


async def test_bfs_on_the_same_graph_ignores_rank() -> None:
    events = await run(popularity_graph("天气"), TOPIC, "bfs")
    assert order(events) == ["/", "/a", "/b", "/c", "/h", "/b1", "/c1"]


async def test_topic_pagerank_uses_rank_when_sim_is_equal() -> None:
    params = {"w_link": 0, "r_norm": "max"}
    events = await run(popularity_graph("足球"), TOPIC, "topic-pagerank", params=params)
    assert order(events) == ["/", "/a", "/b", "/c", "/b1", "/h", "/c1"]
    r_a = 0.15 + 0.85 / 3
    # W_PF = 0.8·R/maxR + 0.2·sim/(1+0.75+0.25); max R is the seed's 1, sim(足球) = 1
    assert fetches(events)[4].priority == pytest.approx(0.8 * (r_a + 0.85 * r_a / 2) + 0.2 * 0.5)
    assert fetches(events)[5].priority == pytest.approx(0.8 * r_a + 0.2 * 0.5)


async def test_topic_pagerank_uses_sim_when_rank_is_equal() -> None:
    params = {"w_link": 0, "r_norm": "max"}
    events = await run(two_branches("足球", "天气"), TOPIC, "topic-pagerank", params=params)
    assert order(events) == ["/", "/a", "/b", "/a1", "/b1"]
    r = 0.15 + 0.85 / 2
    assert fetches(events)[3].priority == pytest.approx(0.8 * r + 0.2 * 0.5)
    assert fetches(events)[4].priority == pytest.approx(0.8 * r)


def test_topic_pagerank_formula_and_scales() -> None:
    profile = TopicProfile.from_keywords(TOPIC)
    root = page("/", "足球|新闻|赛事", [("/x", "足球"), ("/y", "天气")], meta_keywords="足球")
    rel = score_page(root, profile)
    # tokens 足球 | 新闻 | 赛事 (新闻 is a stop word): N_t/S_t = 1/2; meta 0.75; anchors 1/2·0.25
    assert rel.score == pytest.approx(0.5 + 0.75 + 0.125)
    # the seed: R = 1 on the mean-1 scale; 3 nodes after its links are added
    for norm, r_hat in (("max", 1.0), ("mean", 1.0), ("none", 1.0), ("sum", 1 / 3)):
        strategy = TopicPageRank(profile, {"w_link": 0, "r_norm": norm, "gamma": 0.6})
        strategy.seed(root.url)
        scored = strategy.score_links(root, rel, 2)
        assert [s.priority for s in scored] == [
            pytest.approx(0.6 * r_hat + 0.4 * rel.score / 2)
        ] * 2
    # the link's own anchor text (extended metadata) separates the two children
    strategy = TopicPageRank(profile, {"w_link": 0.5, "r_norm": "max"})
    strategy.seed(root.url)
    x, y = strategy.score_links(root, rel, 2)
    assert x.priority == pytest.approx(0.8 + 0.2 * (0.5 * rel.score / 2 + 0.5 * 1.0))
    assert y.priority == pytest.approx(0.8 + 0.2 * (0.5 * rel.score / 2))


async def test_topic_pagerank_default_scale_lets_sim_lead() -> None:
    """With R/N (the default), a popular off-topic parent does not beat an on-topic one."""
    fans = [(f"/x{i}", "链接") for i in range(4)]
    dead_ends = [(f"/d{i}", "链接") for i in range(30)]
    graph = site(
        page("/", "足球", [*fans, ("/pop", "链接"), ("/rel", "链接"), *dead_ends]),
        *(page(f"/x{i}", "天气", [("/pop", "链接")]) for i in range(4)),
        page("/pop", "天气", [("/pop1", "链接")]),
        page("/rel", "足球", [("/rel1", "链接")]),
    )
    # R(/pop) = r·(1 + 4·0.85) with r = R(/rel) = 0.15 + 0.85/36; sim(/rel) = 1, sim(/pop) = 0
    default = order(await run(graph, TOPIC, "topic-pagerank"))
    assert default.index("/rel1") < default.index("/pop1")
    r_max = order(await run(graph, TOPIC, "topic-pagerank", params={"r_norm": "max"}))
    assert r_max.index("/pop1") < r_max.index("/rel1")  # R-dominated: the popular page first


async def test_tunnel_to_a_relevant_cluster() -> None:
    """A relevant cluster behind one irrelevant hub page, next to irrelevant branches."""
    noise = [(f"/n{i}", "天气") for i in range(4)]
    graph = site(
        page("/", "足球新闻", [*noise, ("/t", "足球专题")]),
        page("/t", "专题导航", [(f"/r{i}", "足球 赛事") for i in range(3)]),
        *(page(f"/r{i}", "足球 赛事 报道") for i in range(3)),
        *(page(f"/n{i}", "天气预报", [(f"/n{i}x", "更多"), (f"/n{i}y", "更多")]) for i in range(4)),
        *(page(f"/n{i}{s}", "天气") for i in range(4) for s in "xy"),
    )
    tpr = order(await run(graph, TOPIC, "topic-pagerank"))
    assert tpr[:2] == ["/", "/t"]  # the tunnel's anchor text says 足球
    assert tpr[6:9] == ["/r0", "/r1", "/r2"]  # the cluster before the noise's children
    bfs = order(await run(graph, TOPIC, "bfs"))
    assert bfs.index("/r0") == 14  # breadth-first reaches it only after all the noise


async def test_ipagerank_follows_links_whose_text_is_on_topic() -> None:
    graph = site(
        page("/", "首页", [("/b", "天气"), ("/a", "足球新闻")]),
        page("/a", "甲"),
        page("/b", "乙"),
    )
    events = await run(graph, TOPIC, "ipagerank")
    assert order(events) == ["/", "/a", "/b"]
    # shares ∝ eps + RW: /a gets (0.05 + 1) / 1.1 of the seed's rank
    assert fetches(events)[1].priority == pytest.approx(0.15 + 0.85 * 1.05 / 1.1)
    assert fetches(events)[2].priority == pytest.approx(0.15 + 0.85 * 0.05 / 1.1)


async def test_statistical_uses_sibling_ratios() -> None:
    """Hubs /ha and /hb look alike; /ha's fetched children were relevant, /hb's were not."""
    graph = site(
        page(
            "/",
            "足球新闻 足球",
            [
                ("/a1", "甲"),
                ("/a2", "乙"),
                ("/b1", "丙"),
                ("/b2", "丁"),
                ("/ha", "戊"),
                ("/hb", "己"),
            ],
            text="足球 比赛",
        ),
        page("/a1", "足球比赛"),
        page("/a2", "足球联赛"),
        page("/b1", "天气预报"),
        page("/b2", "股市行情"),
        page("/ha", "导航页", [("/a1", "甲"), ("/a2", "乙"), ("/a3", "庚")]),
        page("/hb", "导航页", [("/b1", "丙"), ("/b2", "丁"), ("/b3", "辛")]),
        page("/a3", "尾页"),
        page("/b3", "尾页"),
    )
    events = await run(graph, TOPIC, "statistical", params={"p_min": 0.25})
    # /a3: siblings 2/2 relevant ≥ global 3/6 → P = w_us = 0.25 ≥ γ; /b3: 0/2 → P = 0, dropped
    assert order(events) == ["/", "/a1", "/a2", "/b1", "/b2", "/ha", "/hb", "/a3"]
    assert fetches(events)[-1].priority == pytest.approx(0.25)
    # by default (γ = 0) nothing is pruned, but the sibling evidence still orders the two
    events = await run(graph, TOPIC, "statistical")
    assert order(events)[-2:] == ["/a3", "/b3"]
    assert [e.priority for e in fetches(events)[-2:]] == [pytest.approx(0.25), 0.0]


def test_url_tokens_drop_boilerplate_and_segment_chinese() -> None:
    assert url_tokens("https://www.sina.com.cn/sports/zuqiu-news_2024.shtml?id=5") == [
        "sina",
        "sports",
        "zuqiu",
        "news",
    ]
    assert "足球" in url_tokens("http://t.test/%E8%B6%B3%E7%90%83/list.html")


def test_every_strategy_is_registered_with_the_thesis_defaults() -> None:
    assert sorted(STRATEGIES) == [
        "adaptive",
        "bfs",
        "fish",
        "fish-kp",
        "ipagerank",
        "pagerank",
        "sections",
        "statistical",
        "topic-pagerank",
    ]
    profile = TopicProfile.from_keywords(TOPIC)
    fish = make_strategy("fish", profile)
    assert (fish.params["D"], fish.params["W"], fish.params["a"]) == (2, 20, 1.5)
    assert make_strategy("topic-pagerank", profile).params["gamma"] == 0.8
    assert make_strategy("ipagerank", profile).params["d"] == 0.85
    with pytest.raises(ValueError, match="unknown strategy"):
        make_strategy("dfs", profile)


async def test_adaptive_does_not_starve_links_beyond_the_fish_window() -> None:
    # A relevant list page: 30 off-topic navigation links first, then "下一页" to page 2 of the
    # list, which holds the football articles. Fish-style windows give the pagination link 0
    # (it is child 31 of a·W = 30); adaptive scores every child on its own evidence.
    nav = [(f"/nav{i}", "频道") for i in range(30)]
    graph = site(
        page("/list/1.html", "足球新闻列表", [*nav, ("/list/2.html", "下一页")]),
        page("/list/2.html", "足球新闻列表 第2页", [("/list/a.html", "中超足球联赛")]),
        page("/list/a.html", "中超足球联赛战报"),
        *(page(f"/nav{i}", "天气预报") for i in range(30)),
    )
    kw = {"seeds": ("/list/1.html",), "scope": "any"}
    fish_kp = order(await run(graph, TOPIC, "fish-kp", **kw))
    adaptive = order(await run(graph, TOPIC, "adaptive", **kw))
    assert fish_kp.index("/list/2.html") > fish_kp.index("/nav29")
    # adaptive takes the next page of the list and its story once the navigation links it
    # tried first turn out off-topic, long before it runs out of them
    assert adaptive.index("/list/a.html") < adaptive.index("/nav29") - 15, adaptive


async def test_adaptive_learns_which_site_sections_are_relevant() -> None:
    # The seed links to six pages in /ball/ (about football) and six in /misc/ (not), then to
    # an off-topic hub fetched after them. The hub lists more pages of both sections with the
    # same uninformative anchor, /misc/ first: by then the crawl has seen that /ball/ pages
    # are relevant and /misc/ pages are not, so it takes every /ball/ page first.
    first = [(f"/{sec}/{i}.html", "详情") for i in range(6) for sec in ("ball", "misc")]
    more = [(f"/{sec}/more{i}.html", "详情") for sec in ("misc", "ball") for i in range(6)]
    pages = [page("/", "首页", [*first, ("/hub.html", "更多")]), page("/hub.html", "更多", more)]
    for i in range(6):
        pages += [page(f"/ball/{i}.html", "足球比赛"), page(f"/misc/{i}.html", "天气预报")]
        pages += [page(f"/ball/more{i}.html", "赛事"), page(f"/misc/more{i}.html", "行情")]
    later = [p for p in order(await run(site(*pages), TOPIC, "adaptive")) if "more" in p]
    assert [p.split("/")[1] for p in later] == ["ball"] * 6 + ["misc"] * 6, later
    # breadth-first takes them as the hub lists them
    later = [p for p in order(await run(site(*pages), TOPIC, "bfs")) if "more" in p]
    assert [p.split("/")[1] for p in later] == ["misc"] * 6 + ["ball"] * 6, later


def test_section_keys_name_directories_not_dates_or_files() -> None:
    assert section_keys("http://sports.x.test/2019/1223/doc-1.shtml") == (
        "sports.x.test",
        "sports.x.test",
    )
    assert section_keys("http://www.x.test/sports/nba/1.html") == ("x.test", "x.test/sports")
    assert section_keys("http://x.test/roll/index_2.shtml") == ("x.test", "x.test/roll")
    assert section_keys("http://x.test/index.html") == ("x.test", "x.test")
