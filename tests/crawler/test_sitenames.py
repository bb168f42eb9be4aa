"""A site's own name in its titles (crawler/sitenames.py)."""

from __future__ import annotations

from crawler.sitenames import SiteNames


def observe_site(names: SiteNames, host: str, n: int, parts: list[list[str]]) -> None:
    for i in range(n):
        names.observe(f"http://{host}/2024/0601/a{i:04d}.html", parts[i % len(parts)])


def test_the_part_on_every_title_of_one_site_and_on_no_other_sites_is_its_name() -> None:
    names = SiteNames()
    # two portals, both with a sports and a finance channel: the channels' names are printed
    # by both, each portal's name by itself alone
    observe_site(names, "sports.sina.com.cn", 12, [["体育", "新浪网"], ["财经", "新浪网"]])
    observe_site(names, "www.163.com", 12, [["体育", "网易"], ["财经", "网易"]])
    assert names.names("http://sports.sina.com.cn/2024/0601/b.html") == ["新浪网"]
    # the site, not the host: the portal's other channels share its name
    assert names.names("http://finance.sina.com.cn/x.html") == ["新浪网"]
    assert names.names("http://www.163.com/y.html") == ["网易"]


def test_a_channel_printed_on_nearly_every_title_is_no_name_when_other_sites_print_it() -> None:
    names = SiteNames()
    # a crawl that keeps to the sports channels: 体育 is on every title of both portals
    observe_site(names, "sports.sina.com.cn", 20, [["体育", "新浪网"]])
    observe_site(names, "sports.163.com", 20, [["体育", "网易"]])
    assert names.names("http://sports.sina.com.cn/a.html") == ["新浪网"]
    assert names.names("http://sports.163.com/a.html") == ["网易"]


def test_nothing_is_a_name_before_the_site_has_enough_items_or_where_titles_differ() -> None:
    names = SiteNames(min_items=10)
    observe_site(names, "www.herald.example", 9, [["The Daily Herald"]])
    assert names.names("http://www.herald.example/a.html") == []
    observe_site(names, "www.herald.example", 10, [["The Daily Herald"]])
    assert names.names("http://www.herald.example/a.html") == ["The Daily Herald"]
    # a part on fewer than nine titles in ten is a section, whatever else prints it
    observe_site(names, "www.gazette.example", 20, [["Sport", "The Gazette"], ["The Gazette"]])
    assert names.names("http://www.gazette.example/a.html") == ["The Gazette"]
    # a page observed again is counted once
    for _ in range(30):
        names.observe("http://www.courier.example/1.html", ["Courier"])
    assert names.names("http://www.courier.example/1.html") == []
