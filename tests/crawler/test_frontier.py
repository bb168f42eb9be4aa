"""The frontier: max-merge, never re-queue fetched URLs, FIFO ties, per-host slots, checkpoints."""

from __future__ import annotations

import json

from crawler.frontier import Entry, Frontier


def drain(f: Frontier) -> list[str]:
    out = []
    while (e := f.pop()) is not None:
        f.done(e)
        out.append(e.url)
    return out


def test_priority_order_with_fifo_ties() -> None:
    f = Frontier()
    for name, prio in (("a", 0.5), ("b", 0.9), ("c", 0.5), ("d", 0.1)):
        f.push(f"http://h.test/{name}", prio)
    assert drain(f) == [f"http://h.test/{n}" for n in "bacd"]


def test_max_merge_keeps_highest_priority_and_depth_smallest_hops() -> None:
    f = Frontier()
    f.push("http://h.test/a", 0.3, depth=1, hops=4)
    f.push("http://h.test/b", 0.5)
    f.push("http://h.test/a", 0.9, depth=0, hops=2)
    f.push("http://h.test/a", 0.1, depth=2, hops=7)
    assert len(f) == 2
    e = f.pop()
    assert e is not None
    assert (e.url, e.priority, e.depth, e.hops) == ("http://h.test/a", 0.9, 2, 2)


def test_fetched_urls_are_never_queued_again() -> None:
    f = Frontier()
    f.push("http://h.test/a", 1)
    e = f.pop()
    assert e is not None
    f.done(e)
    assert f.push("http://h.test/a", 5) is False
    f.mark_seen("http://h.test/redirected")
    assert f.push("http://h.test/redirected", 5) is False
    assert len(f) == 0 and f.seen_count == 2


def test_a_busy_host_does_not_block_the_others() -> None:
    f = Frontier(per_host=1)
    f.push("http://slow.test/1", 0.9)
    f.push("http://slow.test/2", 0.8)
    f.push("http://fast.test/1", 0.1)
    first = f.pop()
    assert first is not None and first.url == "http://slow.test/1"
    second = f.pop()  # slow.test has no free slot: the best URL of another host
    assert second is not None and second.url == "http://fast.test/1"
    assert f.pop() is None  # both hosts busy
    f.done(first)
    third = f.pop()
    assert third is not None and third.url == "http://slow.test/2"


def test_while_the_best_url_waits_for_its_host_only_one_within_the_budget_goes_first() -> None:
    f = Frontier(per_host=1)
    for i, prio in enumerate((0.9, 0.8, 0.7)):
        f.push(f"http://sport.test/{i}", prio)
    for i, prio in enumerate((0.3, 0.2)):
        f.push(f"http://other.test/{i}", prio)
    f.budget(3)  # three fetches left: the sport URLs are the three the crawl would fetch
    first = f.pop()
    assert first is not None and first.url == "http://sport.test/0"
    assert f.pop() is None  # the best waits for sport.test; other.test's are past the cut
    f.done(first)
    second = f.pop()
    assert second is not None and second.url == "http://sport.test/1"
    f.budget(10)  # more fetches left than URLs queued: every one of them will be fetched
    third = f.pop()
    assert third is not None and third.url == "http://other.test/0"
    f.budget(None)
    assert f.cut == 0.0


def test_equal_priorities_never_wait_for_a_host() -> None:
    f = Frontier(per_host=1)
    for url in ("http://a.test/1", "http://a.test/2", "http://b.test/1"):
        f.push(url, 0.5)
    f.budget(2)
    first, second = f.pop(), f.pop()
    assert first is not None and second is not None
    assert (first.url, second.url) == ("http://a.test/1", "http://b.test/1")


def test_checkpoint_round_trip_requeues_in_flight() -> None:
    f = Frontier()
    for i in range(5):
        f.push(f"http://h.test/{i}", i / 10, depth=2, hops=1)
    done = f.pop()
    in_flight = f.pop()
    assert done is not None and in_flight is not None
    f.done(done)
    state = json.loads(json.dumps(f.to_dict(requeue=[in_flight])))
    g = Frontier.from_dict(state)
    assert g.push(done.url, 1.0) is False
    assert drain(g) == [f"http://h.test/{i}" for i in (3, 2, 1, 0)]


def test_a_best_entry_whose_fresh_priority_fell_is_queued_again_at_it() -> None:
    f = Frontier()
    for name, prio in (("a", 0.9), ("b", 0.8), ("c", 0.7)):
        f.push(f"http://h.test/{name}", prio)
    now = {"http://h.test/a": 0.75, "http://h.test/b": 0.5}
    asked: list[str] = []

    def fresh(entry: Entry) -> float:
        asked.append(entry.url)
        return now.get(entry.url, entry.priority)

    # a has fallen to 0.75 and b, next, to 0.5: a is still the best
    first = f.pop(fresh)
    assert first is not None and first.url == "http://h.test/a"
    assert asked == ["http://h.test/a", "http://h.test/b", "http://h.test/a"]
    f.done(first)
    second = f.pop(fresh)  # b waits at its new priority behind c
    assert second is not None and second.url == "http://h.test/c"
    assert [(e.url, e.priority) for e in f.entries()] == [("http://h.test/b", 0.5)]
    # a priority that rose is not raised here (a re-prioritisation does that)
    f.push("http://h.test/d", 0.4)
    now["http://h.test/b"] = 0.95
    third = f.pop(fresh)
    assert third is not None and third.url == "http://h.test/b" and third.priority == 0.5
