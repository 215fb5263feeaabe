"""The wider net (memfs.policy.conflict_net): the few memories most like a new one that the
rules did not pair, bounded, of its scope, type and version, in English and Chinese."""

from __future__ import annotations

from memfs.policy import conflict_net, conflicts
from tests.unit.test_conflicts import M, _at

NEW = M("facts/new.md", "Mia's bike now lives in the hallway.", updated=_at(9))


def test_a_near_miss_is_named_and_an_unrelated_memory_is_not() -> None:
    near = M("facts/bike.md", "Mia keeps her bike in the garage.", updated=_at(1))
    far = M("facts/office.md", "The office closes at six.", updated=_at(2))
    assert not conflicts.compare(near.body, NEW.body).conflict  # the rules do not pair them
    assert [m.path for m, _ in conflict_net.near(NEW, [near, far])] == ["facts/bike.md"]


def test_one_shared_word_is_enough_and_the_closer_memory_comes_first() -> None:
    near = M("facts/bike.md", "Mia keeps her bike in the garage.", updated=_at(1))
    same_person = M("facts/tea.md", "Mia drinks green tea.", updated=_at(2))
    assert len(conflict_net.features(same_person.body) & conflict_net.features(NEW.body)) == 1
    assert [m.path for m, _ in conflict_net.near(NEW, [same_person, near])] == ["facts/bike.md", "facts/tea.md"]


def test_another_persons_fact_is_not_named_whatever_it_shares() -> None:
    other = M("facts/kai.md", "Kai keeps his bike in the hallway.", updated=_at(1))
    assert conflict_net.similarity(other.body, NEW.body) >= conflict_net.NEAR_MIN
    assert conflicts.compare(other.body, NEW.body).why == conflicts.OTHER_NAMES
    assert conflict_net.near(NEW, [other]) == []


def test_chinese_meets_whatever_the_segmentation() -> None:
    old = M("facts/hire.md", "我负责前端组的招聘。", updated=_at(1))
    new = M("facts/new.md", "前端组的招聘现在由小周负责。", updated=_at(2))
    other = M("facts/food.md", "我不吃香菜。", updated=_at(1))
    assert [m.path for m, _ in conflict_net.near(new, [old, other])] == ["facts/hire.md"]


def test_the_net_is_bounded_and_ranked() -> None:
    many = [M(f"facts/bike{i}.md", f"Mia keeps her bike in the garage {'near the door ' * i}.", updated=_at(1))
            for i in range(8)]
    found = conflict_net.near(NEW, many)
    assert len(found) == conflict_net.NEAR_MAX
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True) and found[0][0].path == "facts/bike0.md"


def test_only_comparable_memories_and_not_the_rules_own_pairs() -> None:
    body = "Mia keeps her bike in the garage."
    others = [M("facts/a.md", body, scope="user:ola"), M("facts/b.md", body, type="preference"),
              M("facts/c.md", body, version="2"), M("facts/d.md", body, status="superseded"),
              M("facts/e.md", body, is_system=True), M("facts/f.md", body)]
    assert [m.path for m, _ in conflict_net.near(NEW, others, paired=["facts/f.md"])] == []
    assert conflict_net.near(M("facts/k.md", NEW.body, key="bike"), [M("facts/f.md", body)]) == []


def test_similarity_is_symmetric_and_zero_without_words() -> None:
    a, b = "Export my reports as PDF.", "Reports should come as PDF files."
    assert conflict_net.similarity(a, b) == conflict_net.similarity(b, a) > 0
    assert conflict_net.similarity("", "") == 0.0


def test_by_meaning_keeps_what_reaches_the_threshold_most_similar_first() -> None:
    many = [M(f"facts/m{i}.md", f"memory {i}", updated=_at(1)) for i in range(6)]
    least = conflict_net.MEANING_MIN
    cosines = {"facts/m0.md": least - 0.01, "facts/m1.md": 0.9, "facts/m2.md": least,
               "facts/m3.md": 0.95, "facts/m4.md": 0.9, "facts/m5.md": 0.99}
    found = conflict_net.by_meaning(many, cosines, 0.0)
    assert [(m.path, s) for m, s in found] == [("facts/m5.md", 0.99), ("facts/m3.md", 0.95), ("facts/m1.md", 0.9)]
    assert [m.path for m, _ in conflict_net.by_meaning(many[:3], cosines, 0.0)] == ["facts/m1.md", "facts/m2.md"]
    assert conflict_net.by_meaning(many, {}, 0.0) == []  # a memory without a vector is not weighed


def test_comparable_is_what_both_rankings_weigh() -> None:
    body = "My editor of choice is VS Code."
    others = [M("facts/a.md", body, scope="user:ola"), M("facts/b.md", body, type="preference"),
              M("facts/c.md", body, version="2"), M("facts/d.md", body, status="superseded"),
              M("facts/e.md", body, is_system=True), M("facts/f.md", body), M("facts/g.md", body),
              M("facts/h.md", "x" * (conflicts.MAX_CHARS + 1))]
    assert [m.path for m in conflict_net.comparable(NEW, others, paired=["facts/f.md"])] == ["facts/g.md"]
    assert conflict_net.comparable(M("facts/k.md", NEW.body, key="bike"), others) == []
    assert conflict_net.comparable(M("facts/k.md", "y" * (conflicts.MAX_CHARS + 1)), others) == []


def test_merged_takes_the_best_of_each_ranking_in_turn_each_memory_once() -> None:
    a, b, c, d, e = (M(f"facts/{n}.md", n) for n in "abcde")
    words = [(a, 0.6), (b, 0.4), (c, 0.3)]
    meaning = [(d, 0.9), (a, 0.8), (e, 0.7)]
    assert [(m.path, w, v) for m, w, v in conflict_net.merged(words, meaning)] == [
        ("facts/a.md", 0.6, 0.8), ("facts/d.md", None, 0.9), ("facts/b.md", 0.4, None)]
    assert [m.path for m, _, _ in conflict_net.merged([], meaning)] == ["facts/d.md", "facts/a.md", "facts/e.md"]
    assert [(m.path, v) for m, _, v in conflict_net.merged(words, [])] == [
        ("facts/a.md", None), ("facts/b.md", None), ("facts/c.md", None)]
    assert conflict_net.merged([], []) == []


def test_by_meaning_names_nothing_the_embedder_cannot_tell_from_an_unrelated_sentence() -> None:
    """An English-only model reads every Chinese sentence alike: as close to the unrelated
    sentence as to the stored memory, so nothing is named; a clear margin names it."""
    old = [M("facts/home.md", "我住在北京市朝阳区。", updated=_at(1))]
    high = conflict_net.MEANING_MIN + conflict_net.MEANING_MARGIN + 0.1
    assert conflict_net.by_meaning(old, {"facts/home.md": 1.0}, 1.0) == []
    assert conflict_net.by_meaning(old, {"facts/home.md": high}, high - conflict_net.MEANING_MARGIN + 0.01) == []
    assert conflict_net.by_meaning(old, {"facts/home.md": high}, high - conflict_net.MEANING_MARGIN) == [(old[0], high)]
    assert conflict_net.by_meaning(old, {"facts/home.md": conflict_net.MEANING_MIN}, -1.0) == [
        (old[0], conflict_net.MEANING_MIN)]
