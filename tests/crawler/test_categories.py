"""The subjects a user's words are filed under (crawler.categories), and how the judgment
reads them: a link that names one leads only until the concern's model has learned the site."""

from __future__ import annotations

from crawler.categories import SUBJECTS, broader, names_a_subject
from crawler.judgment import Judge
from crawler.profile import TopicProfile
from crawler.relevance import Relevance
from crawler.steering import Steering
from crawler.types import Link, Page


def test_a_topic_is_filed_under_the_subject_it_belongs_to_in_either_language() -> None:
    for term in ("football", "足球", "Premier League", "中国足球", "football transfers"):
        found = broader([term])
        assert {"sport", "体育"} <= set(found), (term, found)
    assert {"finance", "财经"} <= set(broader(["stock market"]))
    assert {"technology", "科技"} <= set(broader(["人工智能"]))
    # a word the table does not know, or a word inside another word, belongs to nothing
    assert broader(["Chelsea"]) == []
    assert broader(["footballer"]) == []


def test_a_label_the_user_gave_is_not_broader_than_itself() -> None:
    found = broader(["sports", "football", "体育"])
    assert "sports" not in found and "体育" not in found
    assert "sport" in found  # another spelling of the subject is still a label
    assert broader([]) == [] and broader(["  "]) == []


def test_every_subject_has_labels_and_members_in_both_languages() -> None:
    from crawler.text import has_han

    for name, (labels, members) in SUBJECTS.items():
        for words in (labels, members):
            assert any(has_han(w) for w in words), name
            assert any(not has_han(w) for w in words), name


def test_a_link_naming_the_subject_leads_while_the_model_is_cold_and_never_pushes() -> None:
    judge = Judge(TopicProfile.from_keywords(["足球"]))
    assert not judge.warm
    label = judge.link_probability("体育")
    assert 0 < label < judge.link_probability("足球")  # less than the user's own word
    assert judge.link_probability("财经") == 0.0
    assert judge.url_probability("http://x.cn/sports/2024/a1.html") == label
    assert judge.url_probability("http://x.cn/finance/2024/a1.html") == 0.0
    # an exclude word still wins
    excluded = Judge(TopicProfile.from_keywords(["足球"], exclude=["彩票"]))
    assert excluded.link_probability("体育彩票") == 0.0
    # once the model is warm, what it learned leads instead
    warm = Judge(TopicProfile.from_keywords(["足球"]), state={"version": 2, "weights": {"x": 1}})
    assert warm.warm
    assert warm.link_probability("体育") == 0.0
    assert warm.url_probability("http://x.cn/sports/2024/a1.html") == 0.0


def steered(keywords: list[str], seed: str, links: list[tuple[str, str]]) -> Steering:
    """The default strategy of a concern with ``keywords`` whose judgment has learned
    nothing, after scoring the ``seed`` page's links ((URL, anchor) pairs)."""
    profile = TopicProfile.from_keywords(keywords)
    steer = Steering(profile)
    steer.attach(Judge(profile))
    steer.seed(seed)
    hub = Page(seed, seed, 200, title="Home", kind="hub", links=[Link(u, a) for u, a in links])
    steer.score_links(hub, Relevance(0.0, 0.5, False, probability=0.0), 1)
    return steer


def test_once_the_model_is_warm_a_link_the_subjects_name_raised_is_worth_the_rest_of_it() -> None:
    links = [
        ("http://x.cn/sports/", "体育"),
        ("http://x.cn/a/1.html", "足球新闻"),
        ("http://x.cn/finance/", "财经"),
    ]
    steer = steered(["足球"], "http://x.cn/", links)
    sport, story, finance = (steer.links[u][0] for u, _ in links)
    assert story > sport > finance == 0.0  # the user's word, then the subject's name

    class Queue:
        def reprioritize(self, again: object) -> None:
            pass

    # the model learned the topic (a fit on the visit's pages): the subject's name counts no more
    steer.attach(Judge(steer.profile, state={"version": 2, "weights": {"中超": 1.0}}))
    steer.rescore(Queue())  # type: ignore[arg-type]
    assert steer.links["http://x.cn/sports/"][0] == 0.0
    assert steer.links["http://x.cn/a/1.html"][0] == story  # the user's own word stays


def test_from_a_seed_inside_a_section_the_subjects_name_leads_only_a_narrower_topic() -> None:
    def anchor_values(keywords: list[str], seed: str) -> dict[str, float]:
        links = [("http://x.com/sport/", "Sport"), ("http://x.com/tech/", "Tech")]
        return {u: a for u, (a, _) in steered(keywords, seed, links).links.items()}

    sport, tech = "http://x.com/sport/", "http://x.com/tech/"
    home = anchor_values(["football"], "http://x.com/")
    assert home[sport] > home[tech] == 0.0
    # the user pointed into the site and gave one word filed under a subject: once that
    # section is read, the subject's other sections are where the topic is
    section = anchor_values(["football"], "http://x.com/news/")
    assert section[sport] == home[sport] > section[tech] == 0.0
    # words that name the whole subject (体育) have said it: from a section the user chose,
    # another spelling of it adds nothing; from a home page it leads as before
    coarse = ["体育", "足球"]
    assert anchor_values(coarse, "http://x.com/news/")[sport] == 0.0
    assert anchor_values(coarse, "http://x.com/")[sport] > 0.0
    assert names_a_subject(coarse) and names_a_subject(["sports"])
    assert not names_a_subject(["football"]) and not names_a_subject(["中国足球"])
